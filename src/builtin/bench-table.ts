/**
 * The table rtcap's Postgres Changes loader writes into by default, as SQL: the built-in server
 * creates it in its migration, and `rtcap init --kind realtime` prints it for a self-hosted
 * Realtime (with the grant and the publication that server needs).
 */

/**
 * A table the Postgres Changes loader writes into by default (changes.table, `bench_messages`):
 * `body` carries "stream:seq" and `sent_at` the scheduled insert time in epoch ms, which the
 * subscribers read back. `name` is schema-qualified and already quoted as SQL needs it.
 */
export function benchTableSql(name: string): string {
  return `create table if not exists ${name} (
  id bigserial primary key,
  room_id int not null default 0,
  body text,
  created_at timestamptz not null default now(),
  sent_at double precision
);`;
}

/**
 * What a self-hosted Realtime's database needs for the loader's default table: the table, read
 * and written by the roles rtcap's tokens carry, in the publication Realtime reads changes from
 * (a profile's changes.publication; Supabase Realtime's is supabase_realtime). Safe to run again.
 */
export function benchTableSetupSql(
  schema = 'public',
  table = 'bench_messages',
  publication = 'supabase_realtime',
): string {
  const name = `${schema}.${table}`;
  return `${benchTableSql(name)}
grant select, insert on ${name} to anon, authenticated;
do $$ begin
  if not exists (select 1 from pg_publication_tables
                 where pubname = '${publication}' and schemaname = '${schema}' and tablename = '${table}') then
    alter publication ${publication} add table ${name};
  end if;
end $$;`;
}
