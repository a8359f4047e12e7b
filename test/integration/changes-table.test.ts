/**
 * Before a Postgres Changes run against a server rtcap did not start, the table the loader writes
 * is checked in a real PostgreSQL (embedded, with the built-in server's migration: roles anon and
 * authenticated, publication supabase_realtime, bench_messages in it): a missing table, a
 * sent_at of bigint (every insert of a fractional epoch-ms time fails there), a table not in the
 * publication and a table the subscribers' role may not read are each refused in one line
 * before anything starts (exit 2); the SQL `rtcap init --kind realtime` prints makes one that
 * passes.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedHandle } from '../../src/server/db/embedded.js';
import { buildStarter } from '../../src/profile/starter.js';
import { checkChangesTable } from '../../src/run/changes-table.js';
import { expectOneLine } from '../support/init-cli.js';
import { rtcapCli } from '../support/rtcap-process.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

const TARGET = 'ws://127.0.0.1:9/socket/websocket';
let db: EmbeddedHandle;
let client: pg.Client;

beforeAll(async () => {
  db = await startEmbedded({ withSchema: true });
  client = new pg.Client({ connectionString: db.connectionString });
  await client.connect();
}, 180_000);

afterAll(async () => {
  await client?.end();
  await db?.stop();
});

function profile(table: string, changes: Record<string, unknown> = {}) {
  return profileFrom({
    name: 'changes-check',
    scenario: 'postgres-changes',
    target: {
      url: TARGET,
      database_url: db.connectionString,
      auth: { jwt_secret: 'x'.repeat(32) },
    },
    changes: { table, ...changes },
    load: { steps: [{ connections: 2, insert_rate: 1, duration: '1s' }] },
  });
}

/** A profile file inserting at TARGET, the test database's URL, `changes` its changes: map. */
function profileFile(dir: string, file: string, changes: string): string {
  const path = join(dir, file);
  writeFileSync(
    path,
    [
      'name: remote-changes',
      'scenario: postgres-changes',
      'target:',
      `  url: ${TARGET}`,
      `  database_url: ${db.connectionString}`,
      '  auth: { jwt_secret: super-secret-jwt-token-with-at-least-32-characters-long }',
      `changes: ${changes}`,
      'load:',
      '  steps: [{ connections: 2, insert_rate: 1, duration: 1s }]',
      '',
    ].join('\n'),
  );
  return path;
}

async function table(name: string, sentAt: string, inPublication: boolean): Promise<void> {
  await client.query(
    `create table public.${name} (id bigserial primary key, room_id int, body text, sent_at ${sentAt})`,
  );
  if (inPublication)
    await client.query(`alter publication supabase_realtime add table public.${name}`);
}

describe('the Postgres Changes table, checked before the run', () => {
  it('the built-in migration’s table passes', async () => {
    expect(await checkChangesTable(profile('bench_messages'), TARGET)).toBeNull();
  });

  it('is not checked against the built-in server (no URL) or for a scenario that inserts nothing', async () => {
    expect(await checkChangesTable(profile('no_such_table'), undefined)).toBeNull();
    const broadcast = profileFrom({
      name: 'b',
      scenario: 'broadcast-public',
      target: { url: TARGET },
      load: { steps: [{ connections: 2, send_rate: 1, duration: '1s' }] },
    });
    expect(await checkChangesTable(broadcast, TARGET)).toBeNull();
  });

  it('a missing table', async () => {
    expect(await checkChangesTable(profile('no_such_table'), TARGET)).toBe(
      "table public.no_such_table (changes.table) does not exist in target.database_url's database: rtcap init --kind realtime prints the SQL that creates it as the loader writes it",
    );
  });

  it('sent_at bigint while the loader writes a float', async () => {
    await table('bench_bigint', 'bigint', true);
    expect(await checkChangesTable(profile('bench_bigint'), TARGET)).toBe(
      'column public.bench_bigint.sent_at is bigint, but the loader writes epoch milliseconds with a fraction (e.g. 1796231642660.4536): make it double precision',
    );
    // The known answer behind it: that insert fails in this database.
    await expect(
      client.query('insert into public.bench_bigint (room_id, body, sent_at) values ($1, $2, $3)', [
        1,
        's:1',
        1796231642660.4536,
      ]),
    ).rejects.toThrow(/invalid input syntax for type bigint/);
  });

  it('a table not in the publication', async () => {
    await table('bench_nopub', 'double precision', false);
    expect(await checkChangesTable(profile('bench_nopub'), TARGET)).toBe(
      'table public.bench_nopub is not in the publication supabase_realtime, so subscribers get no changes: alter publication supabase_realtime add table public.bench_nopub;',
    );
  });

  it('a table the subscribers’ role may not read', async () => {
    await table('bench_private', 'double precision', true);
    await client.query('revoke select on public.bench_private from authenticated');
    expect(await checkChangesTable(profile('bench_private'), TARGET)).toBe(
      "role authenticated, which the subscribers' tokens carry, may not read table public.bench_private: grant select on public.bench_private to authenticated;",
    );
  });

  it('the SQL rtcap init --kind realtime prints creates a table that passes', async () => {
    await client.query('drop table public.bench_messages');
    expect(await checkChangesTable(profile('bench_messages'), TARGET)).toMatch(/does not exist/);
    const setup = buildStarter({ url: TARGET, kind: 'realtime', local: true }).setup;
    const step = setup.find((s) => s.startsWith('For Postgres Changes'))!;
    await client.query(step.slice(step.indexOf('\n') + 1));
    expect(await checkChangesTable(profile('bench_messages'), TARGET)).toBeNull();
  });

  it('rtcap run refuses in one line, exit 2, before anything starts; the password never printed', async () => {
    const dir = tempDir('rtcap-changes-table-');
    const file = profileFile(dir, 'p.yaml', '{ table: bench_bigint }');
    const r = await rtcapCli(['run', file, '--out', join(dir, 'out')]);
    expectOneLine(r, 2, 'column public.bench_bigint.sent_at is bigint');
    const password = new URL(db.connectionString).password;
    expect(r.stderr + r.stdout).not.toContain(password);
  }, 60_000);

  it('rtcap campaign checks every entry first: one line naming the entry, exit 2, no entry started', async () => {
    const dir = tempDir('rtcap-changes-table-');
    profileFile(dir, 'good.yaml', '{ table: bench_messages }');
    profileFile(dir, 'bigint.yaml', '{ table: bench_bigint }');
    const file = join(dir, 'c.yaml');
    writeFileSync(
      file,
      'name: changes-check\nentries:\n  - profile: good.yaml\n  - profile: bigint.yaml\n',
    );
    const out = join(dir, 'out');
    const r = await rtcapCli(['campaign', file, '--out', out]);
    expectOneLine(
      r,
      2,
      'rtcap campaign: entry 2 (bigint): column public.bench_bigint.sent_at is bigint, but the loader writes epoch milliseconds',
    );
    expect(existsSync(join(out, 'campaign.json'))).toBe(false);
    expect(r.stderr + r.stdout).not.toContain(new URL(db.connectionString).password);
  }, 60_000);

  it('the publication is the profile’s changes.publication (default supabase_realtime)', async () => {
    await client.query('create publication rtcap_other');
    await table('bench_otherpub', 'double precision', false);
    await client.query('alter publication rtcap_other add table public.bench_otherpub');
    await client.query('grant select on public.bench_otherpub to authenticated');
    expect(await checkChangesTable(profile('bench_otherpub'), TARGET)).toBe(
      'table public.bench_otherpub is not in the publication supabase_realtime, so subscribers get no changes: alter publication supabase_realtime add table public.bench_otherpub;',
    );
    const other = profile('bench_otherpub', { publication: 'rtcap_other' });
    expect(other.changes.publication).toBe('rtcap_other');
    expect(await checkChangesTable(other, TARGET)).toBeNull();
    expect(
      await checkChangesTable(profile('bench_otherpub', { publication: 'no_such_pub' }), TARGET),
    ).toBe(
      'the database has no publication no_such_pub (changes.publication), which Realtime reads changes from',
    );
  });

  it('a publication name that cannot be one is refused naming the field and its line (exit 2)', async () => {
    const dir = tempDir('rtcap-changes-table-');
    const file = profileFile(dir, 'p.yaml', "{ publication: 'my pub; drop table x' }");
    const r = await rtcapCli(['validate', file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/p\.yaml:7:\d+: changes\.publication: a PostgreSQL publication name/);
  }, 30_000);
});
