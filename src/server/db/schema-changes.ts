/**
 * The part of the tenant schema Postgres Changes needs (docs/PROTOCOL.md §7.1, §7.2):
 * `realtime.subscription` and its filter types, the trigger validating each filter at insert
 * time with Supabase's messages, and `realtime.rtcap_visible(jsonb)`, the per-subscriber RLS
 * probe of the poller. One part of the migration (migration.ts), which adds the publication.
 */

export const CHANGES_SCHEMA_SQL = `-- docs/PROTOCOL.md §7.1 / §7.2: subscription rows and their filters.
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
$f$;`;
