/**
 * Before a Postgres Changes run against a server rtcap did not start: is the table the loader
 * writes there as the loader and the subscribers need it? Against a Realtime whose table has
 * `sent_at bigint`, every insert failed ("invalid input syntax for type bigint:
 * "1796231642660.4536"") and the run measured nothing; a table missing from the publication
 * gives subscribers no events at all. Each problem is one line naming the table, the column or
 * the role, so nothing runs until it is fixed (`rtcap init --kind realtime` prints the SQL that
 * creates the table as the loader expects it).
 */
import type { Profile } from '../profile/schema.js';
import { redactText } from '../redact/redact.js';

/** The loader's default INSERT's columns: what it writes, and the column types that hold it. */
const LOADER_COLUMNS: { name: string; writes: string; types: RegExp; want: string }[] = [
  {
    name: 'room_id',
    writes: 'the room number (an integer)',
    types: /^(smallint|integer|bigint|numeric|double precision|real)/,
    want: 'integer',
  },
  {
    name: 'body',
    writes: 'text ("stream:seq")',
    types: /^(text|character varying|character|citext)/,
    want: 'text',
  },
  {
    name: 'sent_at',
    writes: 'epoch milliseconds with a fraction (e.g. 1796231642660.4536)',
    types: /^(double precision|numeric)/,
    want: 'double precision',
  },
];

/** A query runner: pg's Client.query, or a stand-in. */
export type Query = (
  sql: string,
  params: unknown[],
) => Promise<{ rows: Record<string, unknown>[] }>;

/** The role whose tokens the subscribers join with: minted users are `authenticated`. */
export function subscriberRole(profile: Profile): string {
  const a = profile.target.auth;
  if (profile.private.user_token_file || a?.jwt_secret || a?.private_key_file)
    return 'authenticated';
  return a?.role ?? 'anon';
}

/** What is wrong with the loader's table, in one line; null when nothing is. */
export async function changesTableProblem(profile: Profile, query: Query): Promise<string | null> {
  const c = profile.changes;
  const name = `${c.schema}.${c.table}`;
  const fix = 'rtcap init --kind realtime prints the SQL that creates it as the loader writes it';
  const rel = await query(
    `select c.oid::int as oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relname = $2 and c.relkind in ('r', 'p')`,
    [c.schema, c.table],
  );
  if (rel.rows.length === 0)
    return `table ${name} (changes.table) does not exist in target.database_url's database: ${fix}`;
  const cols = await query(
    `select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
     where attrelid = $1 and attnum > 0 and not attisdropped`,
    [rel.rows[0].oid],
  );
  const types = new Map(cols.rows.map((r) => [String(r.name), String(r.type)]));
  // A custom insert_sql writes columns of its own: only the default INSERT's are known.
  for (const col of c.insert_sql ? [] : LOADER_COLUMNS) {
    const type = types.get(col.name);
    if (type === undefined)
      return `table ${name} has no column ${col.name}, which the loader writes (${col.writes}): ${fix}`;
    if (!col.types.test(type))
      return `column ${name}.${col.name} is ${type}, but the loader writes ${col.writes}: make it ${col.want}`;
  }
  const publication = c.publication;
  const pub = await query(
    `select (select count(*)::int from pg_publication where pubname = $1) as publications,
            (select count(*)::int from pg_publication_tables
              where pubname = $1 and schemaname = $2 and tablename = $3) as listed`,
    [publication, c.schema, c.table],
  );
  if (Number(pub.rows[0]?.publications) === 0)
    return `the database has no publication ${publication} (changes.publication), which Realtime reads changes from`;
  if (Number(pub.rows[0]?.listed) === 0)
    return `table ${name} is not in the publication ${publication}, so subscribers get no changes: alter publication ${publication} add table ${name};`;
  return roleProblem(profile, name, query);
}

async function roleProblem(profile: Profile, name: string, query: Query): Promise<string | null> {
  const role = subscriberRole(profile);
  const ident = (id: string) => `"${id.replace(/"/g, '""')}"`;
  const qualified = `${ident(profile.changes.schema)}.${ident(profile.changes.table)}`;
  const r = await query(
    `select exists (select 1 from pg_roles where rolname = $1) as role,
            case when exists (select 1 from pg_roles where rolname = $1)
              then has_table_privilege($1, $2, 'SELECT') end as can`,
    [role, qualified],
  );
  if (!r.rows[0]?.role)
    return `role ${role}, which the subscribers' tokens carry, does not exist in the database`;
  if (!r.rows[0]?.can)
    return `role ${role}, which the subscribers' tokens carry, may not read table ${name}: grant select on ${name} to ${role};`;
  return null;
}

/** Whether a run of this profile inserts rows (Postgres Changes, alone or mixed). */
export function insertsRows(profile: Profile): boolean {
  if (profile.scenario === 'postgres-changes') return true;
  return profile.scenario === 'mixed' && profile.load.steps.some((s) => (s.insert_rate ?? 0) > 0);
}

/**
 * The check before a run against a server rtcap did not start (`targetUrl` set): null when the
 * run does not insert rows or the table is as the loader needs it, else the one line to refuse
 * with. The database URL is never quoted (it holds a password).
 */
export async function checkChangesTable(
  profile: Profile,
  targetUrl: string | undefined,
): Promise<string | null> {
  if (!targetUrl || !insertsRows(profile)) return null;
  const dbUrl = profile.target.database_url;
  if (!dbUrl)
    return `scenario ${profile.scenario} inserts rows into ${profile.changes.schema}.${profile.changes.table}, but no database is known: set target.database_url (the server's database)`;
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: dbUrl, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    const err = e as Error & { code?: string };
    const why = redactText(err.message.split('\n')[0]);
    return `target.database_url: cannot connect to the database (${err.code ? `${err.code}: ` : ''}${why})`;
  }
  try {
    return await changesTableProblem(profile, (sql, params) => client.query(sql, params));
  } finally {
    await client.end().catch(() => undefined);
  }
}
