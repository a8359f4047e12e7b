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
import { benchTableSql } from '../../builtin/bench-table.js';

export const DEFAULT_PUBLICATION = 'supabase_realtime';
/** Bumped when the SQL below changes in a way an existing database must pick up. */
export const MIGRATION_VERSION = 1;
const LOCK_KEY = 0x72746361; // 'rtca'

function literal(value: string): string {
  return "'" + value.replace(/'/g, "''") + "'";
}

/** The whole migration as one SQL script (simple-query protocol, one round trip). */
export function migrationSql(publication: string = DEFAULT_PUBLICATION): string {
  const pubLit = literal(publication);
  return `
select pg_advisory_xact_lock(${LOCK_KEY});

-- Roles as a Supabase project has them (nologin; the API gateway's authenticator switches to them).
do $$ begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then create role anon nologin noinherit; end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then create role authenticated nologin noinherit; end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then create role service_role nologin noinherit bypassrls; end if;
end $$;

grant usage on schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;

-- auth.* helpers read the claims Realtime puts into request.jwt.claims (docs/PROTOCOL.md §6.2); created only
-- where absent so a real Supabase database keeps its own.
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;
do $$ begin
  if to_regprocedure('auth.jwt()') is null then
    create function auth.jwt() returns jsonb language sql stable as
      'select coalesce(nullif(current_setting(''request.jwt.claim'', true), ''''), nullif(current_setting(''request.jwt.claims'', true), ''''))::jsonb';
  end if;
  if to_regprocedure('auth.role()') is null then
    create function auth.role() returns text language sql stable as
      'select coalesce(nullif(current_setting(''request.jwt.claim.role'', true), ''''), (nullif(current_setting(''request.jwt.claims'', true), '''')::jsonb ->> ''role''))';
  end if;
  if to_regprocedure('auth.uid()') is null then
    create function auth.uid() returns uuid language sql stable as
      'select nullif(coalesce(nullif(current_setting(''request.jwt.claim.sub'', true), ''''), (nullif(current_setting(''request.jwt.claims'', true), '''')::jsonb ->> ''sub'')), '''')::uuid';
  end if;
end $$;

create schema if not exists realtime;
grant usage on schema realtime to postgres, anon, authenticated, service_role;

-- docs/PROTOCOL.md §6.1. Partitioned by inserted_at as Supabase's is; one default partition takes every row.
create table if not exists realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone not null default timezone('utc', now()),
  inserted_at timestamp without time zone not null default timezone('utc', now()),
  id uuid not null default gen_random_uuid(),
  binary_payload bytea,
  constraint messages_pkey primary key (id, inserted_at)
) partition by range (inserted_at);
create table if not exists realtime.messages_default partition of realtime.messages default;
alter table realtime.messages enable row level security;
grant insert, select, update on realtime.messages to anon, authenticated, service_role;

create or replace function realtime.topic() returns text language sql stable as
  $f$ select nullif(current_setting('realtime.topic', true), '')::text $f$;

-- docs/PROTOCOL.md §7.1 / §7.2: subscription rows and their filters.
do $$ begin
  if to_regtype('realtime.equality_op') is null then
    create type realtime.equality_op as enum (
      'eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'like', 'ilike', 'is', 'match', 'imatch', 'isdistinct');
  end if;
  if to_regtype('realtime.user_defined_filter') is null then
    create type realtime.user_defined_filter as (column_name text, op realtime.equality_op, value text, negate boolean);
  end if;
end $$;

-- Operators added after the first rtcap schema (a database migrated by an older rtcap).
alter type realtime.equality_op add value if not exists 'like';
alter type realtime.equality_op add value if not exists 'ilike';
alter type realtime.equality_op add value if not exists 'is';
alter type realtime.equality_op add value if not exists 'match';
alter type realtime.equality_op add value if not exists 'imatch';
alter type realtime.equality_op add value if not exists 'isdistinct';

create or replace function realtime.to_regrole(role_name text) returns regrole language sql immutable as
  $f$ select role_name::regrole $f$;

-- A text value cast to a type, as JSON: validates filter values the way the column will compare them.
create or replace function realtime.cast(val text, type_ regtype) returns jsonb language plpgsql immutable as $f$
declare
  res jsonb;
begin
  execute format('select to_jsonb(%L::%s)', val, type_) into res;
  return res;
end
$f$;

create table if not exists realtime.subscription (
  id bigint generated always as identity primary key,
  subscription_id uuid not null,
  entity regclass not null,
  filters realtime.user_defined_filter[] not null default '{}',
  claims jsonb not null,
  claims_role regrole not null generated always as (realtime.to_regrole(claims ->> 'role')) stored,
  created_at timestamp without time zone not null default timezone('utc', now()),
  action_filter text default '*' check (action_filter in ('*', 'INSERT', 'UPDATE', 'DELETE')),
  selected_columns text[]
);
create index if not exists ix_realtime_subscription_entity on realtime.subscription (entity);
create unique index if not exists subscription_subscription_id_entity_filters_key
  on realtime.subscription (subscription_id, entity, filters, action_filter);
grant select on realtime.subscription to anon, authenticated, service_role;

-- Validates each filter at insert time (docs/PROTOCOL.md §7.1 step 2): the column exists and the subscriber's
-- role may select it, the value casts to its type, at most 100 values for \`in\`, \`is\`
-- takes a keyword, like/match need a text-like column and a valid pattern. The
-- messages are the ones Supabase raises, which reach the client inside the system message.
create or replace function realtime.subscription_check_filters() returns trigger language plpgsql as $f$
declare
  col_names text[];
  f realtime.user_defined_filter;
  col_type regtype;
  in_val jsonb;
begin
  select coalesce(array_agg(a.attname order by a.attnum), '{}') into col_names
  from pg_catalog.pg_attribute a
  where a.attrelid = new.entity and a.attnum > 0 and not a.attisdropped
    and pg_catalog.has_column_privilege(new.claims ->> 'role', a.attrelid, a.attnum, 'SELECT');

  for f in select * from unnest(new.filters) loop
    if not f.column_name = any(col_names) then
      raise exception 'invalid column for filter %', f.column_name;
    end if;
    select atttypid::regtype into col_type from pg_catalog.pg_attribute
      where attrelid = new.entity and attname = f.column_name;
    if col_type is null then
      raise exception 'failed to lookup type for column %', f.column_name;
    end if;
    if f.op = 'in' then
      in_val := realtime.cast(f.value, (col_type::text || '[]')::regtype);
      if coalesce(jsonb_array_length(in_val), 0) > 100 then
        raise exception 'too many values for \`in\` filter. Maximum 100';
      end if;
    elsif f.op = 'is' then
      if f.value not in ('null', 'true', 'false', 'unknown') then
        raise exception 'invalid value for is filter: must be null, true, false, or unknown';
      end if;
      if f.value <> 'null' and col_type <> 'boolean'::regtype then
        raise exception 'is % filter requires a boolean column, got %', f.value, col_type::text;
      end if;
    elsif f.op in ('like', 'ilike') then
      if not exists (select 1 from pg_catalog.pg_operator where oprname = '~~' and oprleft = col_type) then
        raise exception 'operator % requires a text-compatible column type, got %', f.op::text, col_type::text;
      end if;
    elsif f.op in ('match', 'imatch') then
      if not exists (
        select 1 from pg_catalog.pg_operator
        where oprname = case when f.op = 'imatch' then '~*' else '~' end
          and oprleft = col_type and oprright = col_type and oprresult = 'boolean'::regtype
      ) then
        raise exception 'operator % requires a text-compatible column type, got %', f.op::text, col_type::text;
      end if;
      begin
        perform '' ~ f.value;
      exception when others then
        raise exception 'invalid regular expression for % filter: %', f.op::text, sqlerrm;
      end;
    else
      perform realtime.cast(f.value, col_type);
    end if;
  end loop;

  -- one order, so the unique index sees the same filter set however the client wrote it
  new.filters := coalesce(
    (select array_agg(x order by x.column_name, x.op, x.value, x.negate) from unnest(new.filters) x),
    '{}');
  return new;
end
$f$;
drop trigger if exists tr_check_filters on realtime.subscription;
create trigger tr_check_filters before insert or update on realtime.subscription
  for each row execute function realtime.subscription_check_filters();

-- docs/PROTOCOL.md §7.1 step 4: for each check {entity, pk, role, claims}, whether that role with those claims
-- can SELECT the row (its RLS policies applied). Returns the indexes of the visible checks.
create or replace function realtime.rtcap_visible(checks jsonb) returns int[] language plpgsql volatile as $f$
declare
  chk jsonb;
  cond text;
  visible boolean;
  result int[] := '{}';
  i int := 0;
begin
  for chk in select value from jsonb_array_elements(checks) loop
    select string_agg(format('%I = %L', k, v), ' and ') into cond from jsonb_each_text(chk -> 'pk') as p(k, v);
    perform set_config('role', chk ->> 'role', true), set_config('request.jwt.claims', chk ->> 'claims', true);
    begin
      execute format('select exists (select 1 from %s where %s)', (chk ->> 'entity')::oid::regclass, cond) into visible;
    exception when others then
      visible := false;
    end;
    perform set_config('role', 'none', true), set_config('request.jwt.claims', '', true);
    if visible then
      result := result || i;
    end if;
    i := i + 1;
  end loop;
  return result;
end
$f$;

do $$ begin
  if not exists (select 1 from pg_publication where pubname = ${pubLit}) then
    execute 'create publication ' || quote_ident(${pubLit});
  end if;
end $$;

-- Bench knobs: a settings table the slow policy reads (so a running server can change it).
create schema if not exists rtcap_bench;
grant usage on schema rtcap_bench to anon, authenticated, service_role;
create table if not exists rtcap_bench.settings (key text primary key, value text not null);
insert into rtcap_bench.settings (key, value) values ('slow_policy_ms', '100') on conflict (key) do nothing;

-- Sleeps slow_policy_ms once per transaction, however many probe rows the policy is evaluated
-- on, so one authorisation check costs that long (docs/PROTOCOL.md §6.4: ceiling = pool ÷ check time).
create or replace function rtcap_bench.slow_policy() returns boolean
  language plpgsql volatile security definer set search_path = pg_catalog cost 10000 as $f$
declare
  ms double precision;
begin
  if coalesce(current_setting('rtcap.slept', true), '') <> 'on' then
    select value::double precision into ms from rtcap_bench.settings where key = 'slow_policy_ms';
    perform set_config('rtcap.slept', 'on', true);
    if coalesce(ms, 0) > 0 then
      perform pg_sleep(ms / 1000.0);
    end if;
  end if;
  return true;
end
$f$;
grant execute on function rtcap_bench.slow_policy() to anon, authenticated, service_role;

drop policy if exists rtcap_bench_read on realtime.messages;
create policy rtcap_bench_read on realtime.messages for select to authenticated using (
  realtime.messages.extension in ('broadcast', 'presence') and (
    (select realtime.topic()) like 'room-%'
    or (select realtime.topic()) like 'bench%'
    or (select realtime.topic()) like 'readonly-%'
    or (select realtime.topic()) = 'user-' || coalesce((select auth.jwt() ->> 'sub'), '')
  ));
drop policy if exists rtcap_bench_write on realtime.messages;
create policy rtcap_bench_write on realtime.messages for insert to authenticated with check (
  realtime.messages.extension in ('broadcast', 'presence') and (
    (select realtime.topic()) like 'room-%'
    or (select realtime.topic()) like 'bench%'
    or (select realtime.topic()) = 'user-' || coalesce((select auth.jwt() ->> 'sub'), '')
  ));
drop policy if exists rtcap_bench_slow_read on realtime.messages;
create policy rtcap_bench_slow_read on realtime.messages for select to authenticated using (
  (select realtime.topic()) like 'slow-%' and rtcap_bench.slow_policy());
drop policy if exists rtcap_bench_slow_write on realtime.messages;
create policy rtcap_bench_slow_write on realtime.messages for insert to authenticated with check (
  (select realtime.topic()) like 'slow-%' and rtcap_bench.slow_policy());

-- Postgres Changes bench tables (docs/PROTOCOL.md §7). bench_messages is RLS-filtered per subscriber.
${benchTableSql('public.bench_messages')}
create index if not exists bench_messages_room_id on public.bench_messages (room_id);
alter table public.bench_messages enable row level security;
drop policy if exists bench_messages_read_rooms on public.bench_messages;
create policy bench_messages_read_rooms on public.bench_messages for select to authenticated using (
  (auth.jwt() ->> 'rooms') = '*' or coalesce(auth.jwt() -> 'rooms', '[]'::jsonb) @> to_jsonb(room_id));
drop policy if exists bench_messages_write_authenticated on public.bench_messages;
create policy bench_messages_write_authenticated on public.bench_messages for insert to authenticated with check (true);

${benchTableSql('public.bench_open_messages')}

grant all on public.bench_messages, public.bench_open_messages to anon, authenticated, service_role;
grant all on sequence public.bench_messages_id_seq, public.bench_open_messages_id_seq to anon, authenticated, service_role;

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
