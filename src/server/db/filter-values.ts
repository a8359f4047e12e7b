/**
 * A column's text value (Postgres's output) in the comparable form of its type, as the SQL
 * `check_equality_op` casts both sides (`val::type op val::type`): integers as BigInt, floats
 * and numerics as numbers, booleans, timestamps as epoch microseconds, uuids lower-cased; and
 * the elements of an array literal. Text compares by code point, which can differ from a
 * non-C collation's order for lt/gt on non-ASCII text.
 */

/** A value in its comparable form. */
export type Key = bigint | number | string | boolean;

const INT_TYPES = new Set(['int2', 'int4', 'int8', 'oid', 'xid']);
const FLOAT_TYPES = new Set(['float4', 'float8', 'numeric', 'money']);
const TS_TYPES = new Set(['timestamptz', 'timestamp', 'date']);

const TS_RE =
  /^(\d{4,})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|z|[+-]\d{1,2}(?::?\d{2})?(?::?\d{2})?)?$/;

/** Epoch microseconds of a Postgres timestamp text, or null when it is not one. */
export function timestampMicros(text: string): bigint | null {
  const m = TS_RE.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', tz] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (tz && tz !== 'Z' && tz !== 'z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.slice(1).replace(/:/g, '');
    const offMin = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0');
    ms -= sign * offMin * 60_000;
  }
  return BigInt(ms) * 1000n + BigInt((frac + '000000').slice(0, 6));
}

/** The comparable form of a column value of type `typname` (text output of Postgres). */
export function normalize(typname: string, text: string): Key {
  const t = text.trim();
  if (INT_TYPES.has(typname)) {
    try {
      return BigInt(t.startsWith('+') ? t.slice(1) : t);
    } catch {
      return t;
    }
  }
  if (FLOAT_TYPES.has(typname)) {
    const n = Number(t.replace(/[$,]/g, ''));
    return Number.isNaN(n) && t.toLowerCase() !== 'nan' ? t : n;
  }
  if (typname === 'bool') {
    const l = t.toLowerCase();
    if (['t', 'true', 'y', 'yes', 'on', '1'].includes(l)) return true;
    if (['f', 'false', 'n', 'no', 'off', '0'].includes(l)) return false;
    return t;
  }
  if (TS_TYPES.has(typname)) {
    const us = timestampMicros(t);
    return us ?? t;
  }
  if (typname === 'uuid') return t.toLowerCase();
  return text;
}

/** Elements of a one-dimensional array literal `{a,"b c",NULL}`. */
export function parseArrayLiteral(literal: string): (string | null)[] {
  const s = literal.trim();
  if (!s.startsWith('{') || !s.endsWith('}')) return [s];
  const body = s.slice(1, -1);
  const out: (string | null)[] = [];
  if (body.trim() === '') return out;
  let cur = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quoted) {
      if (ch === '\\' && i + 1 < body.length) cur += body[++i];
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') {
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') {
      out.push(
        !wasQuoted && cur.trim().toUpperCase() === 'NULL' ? null : wasQuoted ? cur : cur.trim(),
      );
      cur = '';
      wasQuoted = false;
    } else {
      cur += ch;
    }
  }
  out.push(!wasQuoted && cur.trim().toUpperCase() === 'NULL' ? null : wasQuoted ? cur : cur.trim());
  return out;
}

/** The order of two comparable values: negative, 0 or positive. */
export function compare(a: Key, b: Key): number {
  if (typeof a === typeof b) {
    if (a === b) return 0;
    return (a as number) < (b as number) ? -1 : 1;
  }
  // Mixed forms (one side failed to normalise): fall back to text order.
  const sa = String(a);
  const sb = String(b);
  return sa === sb ? 0 : sa < sb ? -1 : 1;
}
