/**
 * vitest globalSetup: one parent directory for this run's per-file temp dirs
 * (test/support/tmp-per-file.ts), handed to the test files as `rtcapTmpParent` and removed when
 * the run ends. A parent left by a run that was killed (its pid gone) is removed at the next
 * start. Named vtr-<pid>-* (short: a Postgres socket path below it must stay under 108 bytes),
 * never rtcap-*, so it is never taken for one of rtcap's own entries.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { pidAlive } from '../../src/util/pid-alive.js';

declare module 'vitest' {
  export interface ProvidedContext {
    rtcapTmpParent: string;
  }
}

const PREFIX = 'vtr-';

/**
 * Removes a killed run's parent, as far as it can: one it cannot remove (a mount a killed test
 * left below it answers EBUSY) is named on stderr and left, and the run goes on.
 */
function removeLeftover(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    process.stderr.write(`vitest setup: left ${dir} of a run that is gone: ${why}\n`);
  }
}

export default function setup(project: TestProject): () => void {
  const root = tmpdir();
  for (const name of readdirSync(root).slice(0, 20_000)) {
    const pid = Number(/^vtr-(\d+)-/.exec(name)?.[1]);
    if (pid && pid !== process.pid && !pidAlive(pid)) removeLeftover(join(root, name));
  }
  const parent = mkdtempSync(join(root, `${PREFIX}${process.pid}-`));
  // The built-in server's Postgres runs as the postgres user when tests run as root: it must be
  // able to reach the data directories made below.
  chmodSync(parent, 0o755);
  project.provide('rtcapTmpParent', parent);
  return () => rmSync(parent, { recursive: true, force: true });
}
