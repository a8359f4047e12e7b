import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  reapOrphans,
  startEmbedded,
  type EmbeddedHandle,
} from '../../../src/server/db/embedded.js';

function postgresPidsUnder(root: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.includes(root) && /postgres/.test(l))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

describe('embedded postgres', () => {
  let pgHandle: EmbeddedHandle;
  const lines: string[] = [];

  beforeAll(async () => {
    pgHandle = await startEmbedded({ log: (l) => lines.push(l) });
  });

  afterAll(async () => {
    await pgHandle?.stop();
  });

  it('starts as root with logical decoding and a private data directory', async () => {
    const c = new pg.Client({ connectionString: pgHandle.connectionString });
    await c.connect();
    try {
      const r = await c.query(
        `select current_setting('wal_level') as wal_level, current_setting('server_version_num')::int as v,
                current_setting('listen_addresses') as listen, current_setting('data_directory') as dir`,
      );
      expect(r.rows[0].wal_level).toBe('logical');
      expect(r.rows[0].v).toBeGreaterThanOrEqual(150000);
      expect(r.rows[0].listen).toBe('127.0.0.1');
      expect(r.rows[0].dir.startsWith(pgHandle.dataRoot)).toBe(true);
      // pgoutput and test_decoding ship with the server (wal2json does not).
      await c.query(`select pg_create_logical_replication_slot('t_pgoutput', 'pgoutput', true)`);
      await c.query(
        `select pg_create_logical_replication_slot('t_test_decoding', 'test_decoding', true)`,
      );
    } finally {
      await c.end();
    }
    expect(pgHandle.timings.totalMs).toBeGreaterThan(0);
  });

  it('redacts the password in the url and in its log lines', () => {
    const password = new URL(pgHandle.connectionString).password;
    expect(password.length).toBeGreaterThan(10);
    expect(pgHandle.redactedUrl).not.toContain(password);
    expect(lines.join('\n')).not.toContain(password);
  });

  it('rotates the template password: two instances do not share one', async () => {
    const other = await startEmbedded({});
    try {
      expect(new URL(other.connectionString).password).not.toBe(
        new URL(pgHandle.connectionString).password,
      );
      expect(other.port).not.toBe(pgHandle.port);
    } finally {
      await other.stop();
    }
    expect(existsSync(other.dataRoot)).toBe(false);
    expect(postgresPidsUnder(other.dataRoot)).toEqual([]);
  });

  it('runs initdb when the template cache is off', async () => {
    const fresh = await startEmbedded({ templateCache: false });
    try {
      expect(fresh.timings.fromTemplate).toBe(false);
      const c = new pg.Client({ connectionString: fresh.connectionString });
      await c.connect();
      expect((await c.query(`select current_setting('wal_level') as w`)).rows[0].w).toBe('logical');
      await c.end();
    } finally {
      await fresh.stop();
    }
    expect(existsSync(fresh.dataRoot)).toBe(false);
    expect(postgresPidsUnder(fresh.dataRoot)).toEqual([]);
  });

  it('reaps the cluster of an rtcap process that died without stopping it', async () => {
    const orphan = await startEmbedded({});
    // Pretend its owner died: record the pid of a process that has already exited.
    const gone = spawnSync('true').pid!;
    writeFileSync(path.join(orphan.dataRoot, 'owner.pid'), String(gone));
    expect(postgresPidsUnder(orphan.dataRoot).length).toBeGreaterThan(0);
    expect(await reapOrphans()).toBeGreaterThanOrEqual(1);
    expect(existsSync(orphan.dataRoot)).toBe(false);
    for (let i = 0; i < 50 && postgresPidsUnder(orphan.dataRoot).length > 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(postgresPidsUnder(orphan.dataRoot)).toEqual([]);
    // The live cluster of this test file was left alone.
    expect(existsSync(pgHandle.dataRoot)).toBe(true);
    await orphan.stop(); // a no-op by now, must not throw
  });
});
