import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TWO_AT_A_TIME } from './test-groups.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the files run two at a time', () => {
  it('are integration test files that exist: a renamed one would run three at a time unseen', () => {
    for (const file of TWO_AT_A_TIME) {
      expect(file).toMatch(/^test\/integration\/[^/]+\.test\.ts$/);
      expect(existsSync(resolve(ROOT, file)), file).toBe(true);
    }
  });
});
