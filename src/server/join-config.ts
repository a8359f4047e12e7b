/**
 * The Supabase join payload (docs/PROTOCOL.md §3.1; `Payloads.Join` and `Config`). Invalid
 * shapes never fail a join: Realtime logs `InvalidJoinPayload` and keeps the fields that
 * did parse, so every field here falls back to its default on its own.
 */
import { createHash } from 'node:crypto';
import { intern } from './intern.js';

export interface PostgresChangeParams {
  /** The client's params map exactly as sent: echoed in the join reply with an `id`. */
  raw: Record<string, unknown>;
  event: string;
  schema: string;
  table: string;
  filter?: string;
}

export interface JoinConfig {
  self: boolean;
  ack: boolean;
  replay: boolean;
  replicationReady: boolean;
  presenceKey: string | null;
  presenceEnabled: boolean;
  isPrivate: boolean;
  postgresChanges: PostgresChangeParams[];
  /** `config` present: the new API (docs/PROTOCOL.md §7.3 last bullet). */
  newApi: boolean;
  accessToken: string | null;
}

/** `FlexibleBoolean`: true/false or "true"/"false" in any case; anything else is false. */
export function flexibleBoolean(v: unknown): boolean {
  if (v === true) return true;
  if (typeof v === 'string') return v.toLowerCase() === 'true';
  return false;
}

function obj(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : null;
}

/**
 * `event` is `*`, INSERT, UPDATE or DELETE, case-insensitive; anything else means `*`
 * (docs/PROTOCOL.md §7.2).
 */
function normalizeEvent(v: unknown): string {
  const e = typeof v === 'string' ? v.toUpperCase() : '*';
  return e === 'INSERT' || e === 'UPDATE' || e === 'DELETE' ? e : '*';
}

export function parseJoinPayload(payload: unknown, subtopic: string): JoinConfig {
  const p = obj(payload) ?? {};
  const config = obj(p.config);
  const broadcast = obj(config?.broadcast) ?? {};
  const presence = obj(config?.presence) ?? {};
  const token = p.access_token ?? p.user_token;
  const out: JoinConfig = {
    self: flexibleBoolean(broadcast.self),
    ack: flexibleBoolean(broadcast.ack),
    replay: broadcast.replay !== undefined && broadcast.replay !== null,
    replicationReady: flexibleBoolean(broadcast.replication_ready),
    presenceKey: typeof presence.key === 'string' && presence.key !== '' ? presence.key : null,
    presenceEnabled: flexibleBoolean(presence.enabled),
    isPrivate: flexibleBoolean(config?.private),
    postgresChanges: [],
    newApi: config !== null,
    accessToken: typeof token === 'string' ? intern(token) : null,
  };
  if (config) {
    const list = Array.isArray(config.postgres_changes) ? config.postgres_changes : [];
    for (const item of list) {
      const m = obj(item);
      if (!m) continue;
      out.postgresChanges.push(toParams(m));
    }
  } else if (subtopic !== '' && p.config === undefined && hasOldApiShape(subtopic)) {
    // Old API: `realtime:schema:table:filter` (docs/PROTOCOL.md §3.1 "Old API").
    const [schema, table, filter] = splitParts(subtopic);
    const raw: Record<string, unknown> = { schema };
    if (table !== undefined) raw.table = table;
    if (filter !== undefined) raw.filter = filter;
    out.postgresChanges.push(toParams(raw));
  }
  return out;
}

/**
 * Only topics that look like `schema[:table[:filter]]` subscribe through the old API; a
 * plain room name (no colon) stays a broadcast channel. Realtime would subscribe even a
 * plain name as schema-only, which makes a benchmark's public room hit Postgres; the
 * built-in server requires a `:` to keep public joins off the database.
 */
function hasOldApiShape(subtopic: string): boolean {
  return subtopic.includes(':');
}

function splitParts(subtopic: string): [string, string | undefined, string | undefined] {
  const i = subtopic.indexOf(':');
  if (i < 0) return [subtopic, undefined, undefined];
  const rest = subtopic.slice(i + 1);
  const k = rest.indexOf(':');
  if (k < 0) return [subtopic.slice(0, i), rest, undefined];
  return [subtopic.slice(0, i), rest.slice(0, k), rest.slice(k + 1)];
}

function toParams(m: Record<string, unknown>): PostgresChangeParams {
  const p: PostgresChangeParams = {
    raw: m,
    event: normalizeEvent(m.event),
    schema: typeof m.schema === 'string' && m.schema !== '' ? m.schema : 'public',
    table: typeof m.table === 'string' && m.table !== '' ? m.table : '*',
  };
  if (typeof m.filter === 'string' && m.filter !== '') p.filter = m.filter;
  return p;
}

/**
 * The binding id echoed in the join reply and carried in `ids` (docs/PROTOCOL.md §3.2): Realtime
 * uses `:erlang.phash2(params)`, an integer in [0, 2^27). Any stable hash of the params with
 * that range routes identically; this one hashes a canonical JSON of the map.
 */
export function bindingId(raw: Record<string, unknown>): number {
  const digest = createHash('sha1').update(canonicalJson(raw)).digest();
  return digest.readUInt32BE(0) & (2 ** 27 - 1);
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v as object).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
