/**
 * `rtcap init --kind realtime --private` probes the private path the run takes, against the
 * built-in server and its real PostgreSQL row-level security: the profile's first connection's
 * join of realtime:room-0 (private: true) with user-0's token. With the migration's policies on
 * realtime.messages the join and a broadcast back pass and the profile is written; once the read
 * policy is dropped the server refuses that join, and init says so in one line (exit 3) and
 * writes nothing — where a probe of a public topic would have passed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDatabase } from '../../src/server/db/index.js';
import type { ServerDb } from '../../src/server/db/server-db.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { expectOneLine } from '../support/init-cli.js';
import { rtcapCli } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

let db: ServerDb;
let srv: RunningServer;

beforeAll(async () => {
  db = await startDatabase({ dbPool: 2, subsPoolSize: 1 });
  srv = await startServer({ port: 0, db, log: () => undefined });
}, 180_000);

afterAll(async () => {
  await srv?.close();
  await db?.stop();
});

/** init as a user runs it with no secret exported: the probe signs with the development one. */
async function initPrivate() {
  const dir = tempDir('rtcap-init-private-');
  const out = join(dir, 'rtcap.yaml');
  const url = `ws://127.0.0.1:${srv.port}/socket/websocket`;
  const r = await rtcapCli(['init', url, '--kind', 'realtime', '--private', '--out', out], {
    env: { REALTIME_JWT_SECRET: '' },
  });
  return { r, out };
}

describe('rtcap init --private probes the private path', () => {
  it('with the read and write policies: the private join and a broadcast back pass', async () => {
    const { r, out } = await initPrivate();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(
      /^probed .*: a broadcast on private realtime:room-0 came back under vsn 2\.0\.0 binary broadcasts in \d+ ms/,
    );
    expect(readFileSync(out, 'utf8')).toContain('scenario: broadcast-private');
  }, 60_000);

  it('without the read policy: the refusal quoted in one line, exit 3, nothing written', async () => {
    const c = new pg.Client({ connectionString: db.connectionString() });
    await c.connect();
    try {
      await c.query('drop policy rtcap_bench_read on realtime.messages');
    } finally {
      await c.end();
    }
    const { r, out } = await initPrivate();
    expectOneLine(
      r,
      3,
      "refused the private join of realtime:room-0 with user-0's token (role authenticated) (join refused: Unauthorized: You do not have permissions to read from this Channel topic: room-0): private channels need the RLS policies on realtime.messages",
    );
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});
