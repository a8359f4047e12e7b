/**
 * Column values of a change as the client sees them in `record` / `old_record`
 * (docs/PROTOCOL.md §7.3). Supabase casts each wal2json value with `to_jsonb(value::type)`; this
 * does the same from Postgres's text output for the common types: numbers become JSON
 * numbers (NaN/Infinity stay strings, as to_jsonb gives), booleans booleans, json/jsonb
 * parsed, timestamps in to_jsonb's ISO form (`2026-08-01T12:00:00.123456+00:00`), arrays
 * as JSON arrays of their element type. Every other type keeps its text form, which is what
 * to_jsonb gives for them too (uuid, date, time, interval, bytea, inet, ...).
 *
 * Expects the decoding session to run with `TimeZone=UTC` and `DateStyle=ISO`.
 */
import { parseArrayLiteral } from './filter-values.js';

const NUMBER_TYPES = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid']);

function toNumber(text: string): number | string {
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

/** `2026-08-01 12:00:00.5+00` → `2026-08-01T12:00:00.5+00:00` (to_jsonb of timestamptz). */
function isoTimestamptz(text: string): string {
  const m =
    /^(\d{4,}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)([+-]\d\d)(?::?(\d\d))?(?::?(\d\d))?( BC)?$/.exec(
      text,
    );
  if (!m) return text;
  const [, date, time, tzh, tzm = '00', tzs, bc] = m;
  return `${date}T${time}${tzh}:${tzm}${tzs ? ':' + tzs : ''}${bc ?? ''}`;
}

function isoTimestamp(text: string): string {
  return /^\d{4,}-\d\d-\d\d \d/.test(text) ? text.replace(' ', 'T') : text;
}

function nestedArray(text: string, elementType: string): unknown {
  // Multi-dimensional arrays: split the outer braces one level at a time.
  const inner = text.trim().slice(1, -1).trim();
  if (inner.startsWith('{')) {
    const parts: string[] = [];
    let depth = 0;
    let start = 0;
    let quoted = false;
    for (let i = 0; i < inner.length; i++) {
      const ch = inner[i];
      if (quoted) {
        if (ch === '\\') i++;
        else if (ch === '"') quoted = false;
      } else if (ch === '"') quoted = true;
      else if (ch === '{') {
        if (depth === 0) start = i;
        depth++;
      } else if (ch === '}') {
        depth--;
        if (depth === 0) parts.push(inner.slice(start, i + 1));
      }
    }
    return parts.map((p) => nestedArray(p, elementType));
  }
  return parseArrayLiteral(text).map((v) => (v === null ? null : toJsonValue(elementType, v)));
}

/** One column value; `typname` is pg_type.typname (`int8`, `_text`, `timestamptz`, ...). */
export function toJsonValue(typname: string, text: string | null): unknown {
  if (text === null) return null;
  if (NUMBER_TYPES.has(typname)) return toNumber(text);
  switch (typname) {
    case 'bool':
      return text === 't' ? true : text === 'f' ? false : text;
    case 'json':
    case 'jsonb':
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    case 'timestamptz':
      return isoTimestamptz(text);
    case 'timestamp':
      return isoTimestamp(text);
  }
  if (typname.startsWith('_') && text.startsWith('{')) {
    // Array types are named after their element type with a leading underscore.
    return nestedArray(text.replace(/^\[[^\]]*\]=/, ''), typname.slice(1));
  }
  return text;
}
