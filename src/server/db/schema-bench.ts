/**
 * The part of the tenant schema only rtcap's profiles use: the `rtcap_bench` settings and the
 * `slow-*` policy's sleep, the private-channel topic policies on `realtime.messages`, and the
 * Postgres Changes bench tables with their RLS (the list is migration.ts's header). One part of
 * the migration (migration.ts), which adds the bench tables to the publication.
 */
import { benchTableSql } from '../../builtin/bench-table.js';

export const BENCH_SCHEMA_SQL = `-- Bench knobs: a settings table the slow policy reads (so a running server can change it).
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
grant all on sequence public.bench_messages_id_seq, public.bench_open_messages_id_seq to anon, authenticated, service_role;`;
