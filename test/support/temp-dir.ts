/**
 * Temporary directories for tests that are removed when their test file ends: a test makes one
 * with `tempDir('rtcap-x-')` instead of mkdtempSync and never has to remember to delete it.
 * (test/support/tmp-per-file.ts fails a test file that leaves anything named rtcap-* behind.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A new empty directory under the temp dir, its name starting with `prefix`. */
export function tempDir(prefix = 'rtcap-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory tempDir made (run once the test file's own after-hooks are done). */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
