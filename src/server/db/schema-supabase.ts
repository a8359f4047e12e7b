/**
 * The part of the tenant schema every Supabase project has (docs/PROTOCOL.md §6.1): roles
 * `anon` / `authenticated` / `service_role`, the `auth` claim helpers (created only where
 * absent), `realtime.messages` with RLS on, and `realtime.topic()`. One part of the migration
 * (migration.ts).
 */

export const SUPABASE_SCHEMA_SQL = `-- Roles as a Supabase project has them (nologin; the API gateway's authenticator switches to them).
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
  $f$ select nullif(current_setting('realtime.topic', true), '')::text $f$;`;
