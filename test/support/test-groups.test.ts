import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_PROCESS, TWO_AT_A_TIME } from './test-groups.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the files run two at a time', () => {
  it('are integration test files that exist: a renamed one would run four at a time unseen', () => {
    for (const file of TWO_AT_A_TIME) {
      expect(file).toMatch(/^test\/integration\/[^/]+\.test\.ts$/);
      expect(existsSync(resolve(ROOT, file)), file).toBe(true);
    }
  });
});

/** Every .ts file below `dir`, relative to the project root. */
function tsFiles(dir: string): string[] {
  return readdirSync(resolve(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

describe('the files that share a worker process', () => {
  it('are folders of test/ that exist', () => {
    for (const glob of SHARED_PROCESS) {
      const dir = /^(test\/[a-z0-9-]+)\/\*\*\/\*\.test\.ts$/.exec(glob)?.[1];
      expect(dir, glob).toBeDefined();
      expect(existsSync(resolve(ROOT, dir!)), glob).toBe(true);
    }
  });

  it('never have a test replace process.env: the files after it would run with a stale environment', () => {
    // A plain object in place of process.env is no longer the system's environment: os.tmpdir()
    // and child processes read what it was when replaced.
    const replacing = tsFiles('test').filter((f) =>
      /\bprocess\.env\s*=[^=]/.test(readFileSync(resolve(ROOT, f), 'utf8')),
    );
    expect(replacing).toEqual([]);
  });
});
