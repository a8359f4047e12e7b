/**
 * The tenant schema rtcap's built-in server needs, shaped like what a Supabase project has
 * (docs/PROTOCOL.md §6.1, §7.1): roles `anon` / `authenticated` / `service_role`, the `auth`
 * claim helpers, `realtime.messages` (RLS on), `realtime.topic()`, `realtime.subscription`
 * with its filter-checking trigger, the `supabase_realtime` publication — plus the bench
 * tables and policies rtcap's profiles use.
 *
 * Idempotent: every statement is `if not exists` / `create or replace` / drop-and-create of
 * our own policies, all in one transaction under an advisory lock, so several workers (or
 * a restart against `--database-url`) can run it concurrently.
 *
 * Bench objects (documented for profile authors):
 * - `public.bench_messages(id bigserial pk, room_id int, body text, created_at timestamptz,
 *   sent_at double precision)`: RLS on; `authenticated` reads rows whose `room_id` is in
 *   the JWT claim `rooms` (a JSON array of ints) or every row when `rooms` is `"*"`;
 *   `anon` reads nothing; `service_role` bypasses RLS.
 * - `public.bench_open_messages`: same columns, no RLS (what the k6 `load_messages` is).
 * - Private-channel topics (policies on `realtime.messages`, role `authenticated`):
 *   `room-*`, `bench*`: broadcast + presence read and write; `readonly-*`: read only;
 *   `user-<sub>`: read and write for the JWT whose `sub` matches; `slow-*`: read and write,
 *   each check first sleeping `rtcap_bench.settings.slow_policy_ms` (once per check
 *   transaction) so the authorisation ceiling pool ÷ check time is measurable
 *   (docs/PROTOCOL.md §6.4); anything else: denied.
 * - `realtime.rtcap_visible(jsonb)`: the per-subscriber RLS probe of the poller
 * (docs/PROTOCOL.md §7.1 step 4).
 */
import type pg from 'pg';
import { BENCH_SCHEMA_SQL } from './schema-bench.js';
import { CHANGES_SCHEMA_SQL } from './schema-changes.js';
import { SUPABASE_SCHEMA_SQL } from './schema-supabase.js';

export const DEFAULT_PUBLICATION = 'supabase_realtime';
/**
 * Bumped when the SQL (below and in schema-*.ts) changes in a way an existing database must pick
 * up.
 */
export const MIGRATION_VERSION = 1;
const LOCK_KEY = 0x72746361; // 'rtca'

function literal(value: string): string {
  return "'" + value.replace(/'/g, "''") + "'";
}

/**
 * The whole migration as one SQL script (simple-query protocol, one round trip): the Supabase
 * part (schema-supabase.ts), the Postgres Changes part (schema-changes.ts) and its publication,
 * the bench part (schema-bench.ts) with its tables in the publication, and the version.
 */
export function migrationSql(publication: string = DEFAULT_PUBLICATION): string {
  const pubLit = literal(publication);
  return `
select pg_advisory_xact_lock(${LOCK_KEY});

${SUPABASE_SCHEMA_SQL}

${CHANGES_SCHEMA_SQL}

do $$ begin
  if not exists (select 1 from pg_publication where pubname = ${pubLit}) then
    execute 'create publication ' || quote_ident(${pubLit});
  end if;
end $$;

${BENCH_SCHEMA_SQL}

do $$
declare
  t text;
begin
  foreach t in array array['bench_messages', 'bench_open_messages'] loop
    if not exists (select 1 from pg_publication_tables where pubname = ${pubLit} and schemaname = 'public' and tablename = t) then
      execute format('alter publication %I add table public.%I', ${pubLit}, t);
    end if;
  end loop;
end $$;

create table if not exists rtcap_bench.migrations (version int primary key, applied_at timestamptz not null default now());
insert into rtcap_bench.migrations (version) values (${MIGRATION_VERSION}) on conflict do nothing;
`;
}

/** Runs the migration in one transaction; safe to run again and concurrently. */
export async function migrate(
  client: pg.Client,
  publication: string = DEFAULT_PUBLICATION,
): Promise<void> {
  await client.query('begin');
  try {
    await client.query(migrationSql(publication));
    await client.query('commit');
  } catch (e) {
    await client.query('rollback').catch(() => undefined);
    throw e;
  }
}

/** Sets the per-check sleep of the `slow-*` topic policies. */
export async function setSlowPolicyMs(client: pg.Client, ms: number): Promise<void> {
  await client.query(
    `insert into rtcap_bench.settings (key, value) values ('slow_policy_ms', $1)
     on conflict (key) do update set value = excluded.value`,
    [String(Math.max(0, ms))],
  );
}
