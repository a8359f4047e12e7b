/**
 * vitest setup file: each test file gets a temp dir of its own (TMPDIR, which os.tmpdir() and
 * every process a test starts read), under the run's parent (tmp-global-setup.ts), so files
 * running side by side never see each other's entries. When the file ends, anything named
 * rtcap-* still in it fails the file, named: a test removes what it makes (test/support/temp-dir
 * does it for directories made with tempDir), and an rtcap run or server a test started removes
 * its own. rtcap's caches (rtcap-pgtemplate-*, rtcap-pgbin-*: see docs/COMMANDS.md) are not
 * leftovers: the ones already in the real temp dir are linked in, so no file builds them again,
 * and one a file builds is moved out to the real temp dir for the next.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, inject } from 'vitest';
import { isCache } from '../../src/builtin/pg-leftovers.js';
import { sleep } from '../../src/util/sleep.js';
import { removeTempDirs } from './temp-dir.js';

/** How long a file's leftovers may take to go (a server stopped at the end removes its dir). */
const SETTLE_MS = 10_000;

const parent = inject('rtcapTmpParent');
// The system's temp dir, where the run's parent is, rather than tmpdir(), which a file before
// this one in the same worker process (a project that is not isolated) may have left elsewhere.
const realTmp = parent ? dirname(parent) : tmpdir();

function rtcapEntries(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('rtcap-') && !isCache(name));
}

/** Moves caches built in `own` to the real temp dir (or drops them when one is there already). */
function publishCaches(own: string): void {
  for (const name of readdirSync(own)) {
    const path = join(own, name);
    if (!isCache(name) || lstatSync(path).isSymbolicLink()) continue;
    const target = join(realTmp, name);
    try {
      if (!existsSync(target)) renameSync(path, target);
    } catch {
      // Another file published the same cache first.
    }
  }
}

if (parent) {
  const own = mkdtempSync(join(parent, 'f'));
  chmodSync(own, 0o755);
  for (const name of readdirSync(realTmp))
    if (isCache(name)) symlinkSync(join(realTmp, name), join(own, name));
  process.env.TMPDIR = own;

  afterAll(async () => {
    removeTempDirs();
    const deadline = Date.now() + SETTLE_MS;
    let left = rtcapEntries(own);
    while (left.length > 0 && Date.now() < deadline) {
      await sleep(200);
      left = rtcapEntries(own);
    }
    publishCaches(own);
    process.env.TMPDIR = realTmp;
    rmSync(own, { recursive: true, force: true });
    if (left.length > 0)
      throw new Error(
        `this test file left ${left.join(', ')} in its temp dir: remove what a test makes ` +
          `(tempDir from test/support/temp-dir removes its directories when the file ends)`,
      );
  }, SETTLE_MS + 30_000);
}
