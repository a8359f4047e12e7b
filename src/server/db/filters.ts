/**
 * Postgres Changes filters (docs/PROTOCOL.md §7.2): parsing the `filter` string of a binding and
 * evaluating parsed filters against a change's column values.
 *
 * Parsing follows Supabase's `parse_subscription_params`: comma-separated segments (commas
 * inside `in.(...)` do not split) ANDed together, each `column=op.value` with an optional
 * `not.` prefix; `in.(a,b)` becomes the array literal `{a,b}`; a double-quoted value is
 * unquoted. Operators: the classic `eq neq lt lte gt gte in` and the 2026 additions `like
 * ilike is match imatch isdistinct` ([version]: older servers refuse those with the parse
 * error). JSON-path columns (`data->>key`) are not supported: the database trigger refuses
 * them as an unknown column.
 *
 * Evaluation is typed like the SQL `check_equality_op` (`val::type op val::type`): both
 * sides are normalised by the column's type (integers as BigInt, floats and numerics as
 * numbers, booleans, timestamps as epoch microseconds, uuids lower-cased) and compared. A
 * null or absent column value never matches (the SQL comparison is null, and null is not
 * visible), except for `is` and `isdistinct`, which are defined on null. Text compares by
 * code point, which can differ from a non-C collation's order for lt/gt on non-ASCII text;
 * `match`/`imatch` use JavaScript regular expressions, which agree with PostgreSQL's for
 * ordinary patterns but not for every construct.
 */

export type FilterOp =
  | 'eq'
  | 'neq'
  | 'lt'
  | 'lte'
  | 'gt'
  | 'gte'
  | 'in'
  | 'like'
  | 'ilike'
  | 'is'
  | 'match'
  | 'imatch'
  | 'isdistinct';
export const FILTER_OPS: readonly FilterOp[] = [
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'like',
  'ilike',
  'is',
  'match',
  'imatch',
  'isdistinct',
];

export interface Filter {
  column: string;
  op: FilterOp;
  /** As stored in realtime.subscription: for `in`, the array literal `{a,b}`. */
  value: string;
  negate: boolean;
}

export type ParseResult = { ok: true; filters: Filter[] } | { ok: false; error: string };

/** Elixir `inspect/1` of a list of strings: `["foo", "hey"]`. */
export function inspectStrings(parts: string[]): string {
  return '[' + parts.map((p) => JSON.stringify(p)).join(', ') + ']';
}

function parseError(reason: string): ParseResult {
  return { ok: false, error: `Error parsing \`filter\` params: ${reason}` };
}

/** Splits on commas outside parentheses and double quotes. */
function splitTopLevel(filter: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let cur = '';
  for (let i = 0; i < filter.length; i++) {
    const ch = filter[i];
    if (quoted) {
      cur += ch;
      if (ch === '\\' && i + 1 < filter.length) cur += filter[++i];
      else if (ch === '"') quoted = false;
      continue;
    }
    if (ch === '"' && (cur.endsWith('.') || cur.endsWith('(') || cur.endsWith(','))) quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out;
}

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  let acc = '';
  for (let i = 1; i < value.length; i++) {
    const ch = value[i];
    if (ch === '\\' && i + 1 < value.length) acc += value[++i];
    else if (ch === '"') return i === value.length - 1 ? acc : value;
    else acc += ch;
  }
  return value;
}

function parseSegment(
  segment: string,
): { ok: true; filter: Filter } | { ok: false; reason: string } {
  const trimmed = segment.trim();
  if (trimmed === '')
    return { ok: false, reason: 'filter must not contain empty segments (check for extra commas)' };
  const eq = trimmed.indexOf('=');
  if (eq < 0) return { ok: false, reason: inspectStrings([trimmed]) };
  const column = trimmed.slice(0, eq);
  let rest = trimmed.slice(eq + 1);
  let negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const dot = rest.indexOf('.');
  if (dot < 0) return { ok: false, reason: inspectStrings([rest]) };
  const op = rest.slice(0, dot);
  const raw = rest.slice(dot + 1);
  if (!(FILTER_OPS as readonly string[]).includes(op))
    return { ok: false, reason: inspectStrings([op, raw]) };
  if (op === 'in') {
    if (raw.length < 2 || !raw.startsWith('(') || !raw.endsWith(')')) {
      return { ok: false, reason: '`in` filter value must be wrapped by parentheses' };
    }
    return { ok: true, filter: { column, op: 'in', value: '{' + raw.slice(1, -1) + '}', negate } };
  }
  return { ok: true, filter: { column, op: op as FilterOp, value: unquote(raw), negate } };
}

/** Parses a binding's `filter`; absent or blank means no filter. */
export function parseFilter(filter: string | undefined | null): ParseResult {
  if (filter === undefined || filter === null) return { ok: true, filters: [] };
  const trimmed = filter.trim();
  if (trimmed === '') return { ok: true, filters: [] };
  const filters: Filter[] = [];
  for (const segment of splitTopLevel(trimmed)) {
    const r = parseSegment(segment);
    if (!r.ok) return parseError(r.reason);
    filters.push(r.filter);
  }
  return { ok: true, filters };
}

// ---------------------------------------------------------------------------------------
// Typed comparison

type Key = bigint | number | string | boolean;

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

function compare(a: Key, b: Key): number {
  if (typeof a === typeof b) {
    if (a === b) return 0;
    return (a as number) < (b as number) ? -1 : 1;
  }
  // Mixed forms (one side failed to normalise): fall back to text order.
  const sa = String(a);
  const sb = String(b);
  return sa === sb ? 0 : sa < sb ? -1 : 1;
}

/** A filter ready for evaluation against columns of known types. */
export interface CompiledFilter extends Filter {
  typname: string;
  key: Key;
  inKeys: Key[] | null;
  /** like / ilike / match / imatch; null when the pattern does not compile in JavaScript. */
  regex: RegExp | null;
}

/** SQL LIKE pattern (`%`, `_`, backslash escape) as an anchored regular expression. */
export function likeToRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\' && i + 1 < pattern.length)
      re += pattern[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (ch === '%') re += '[\\s\\S]*';
    else if (ch === '_') re += '[\\s\\S]';
    else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, caseInsensitive ? 'iu' : 'u');
}

function compileRegex(f: Filter): RegExp | null {
  try {
    if (f.op === 'like' || f.op === 'ilike') return likeToRegExp(f.value, f.op === 'ilike');
    if (f.op === 'match' || f.op === 'imatch')
      return new RegExp(f.value, f.op === 'imatch' ? 'iu' : 'u');
  } catch {
    // A pattern PostgreSQL accepts but JavaScript does not: never matches.
  }
  return null;
}

export function compileFilter(f: Filter, typname: string): CompiledFilter {
  if (f.op === 'in') {
    const keys = parseArrayLiteral(f.value)
      .filter((v): v is string => v !== null)
      .map((v) => normalize(typname, v));
    return { ...f, typname, key: '', inKeys: keys, regex: null };
  }
  if (f.op === 'is')
    return { ...f, typname, key: f.value.toLowerCase(), inKeys: null, regex: null };
  return { ...f, typname, key: normalize(typname, f.value), inKeys: null, regex: compileRegex(f) };
}

/** The SQL truth value of the filter on a non-null value. */
function holds(f: CompiledFilter, raw: string): boolean {
  switch (f.op) {
    case 'like':
    case 'ilike':
    case 'match':
    case 'imatch':
      return f.regex !== null && f.regex.test(raw);
    case 'is': {
      // `null` and `unknown` hold only for null (handled by the caller).
      const v = normalize('bool', raw);
      return (f.key === 'true' && v === true) || (f.key === 'false' && v === false);
    }
    case 'isdistinct':
      return compare(normalize(f.typname, raw), f.key) !== 0;
  }
  const value = normalize(f.typname, raw);
  switch (f.op) {
    case 'eq':
      return compare(value, f.key) === 0;
    case 'neq':
      return compare(value, f.key) !== 0;
    case 'lt':
      return compare(value, f.key) < 0;
    case 'lte':
      return compare(value, f.key) <= 0;
    case 'gt':
      return compare(value, f.key) > 0;
    case 'gte':
      return compare(value, f.key) >= 0;
    case 'in':
      return f.inKeys!.some((k) => compare(value, k) === 0);
  }
}

/** AND of all filters over `values` (column name → text, null for SQL NULL). */
export function visibleThroughFilters(
  filters: CompiledFilter[],
  values: Map<string, string | null>,
): boolean {
  for (const f of filters) {
    if (!values.has(f.column)) return false;
    const raw = values.get(f.column);
    let ok: boolean;
    if (raw === null || raw === undefined) {
      // Comparisons with null are null (not visible) whatever `not.` says; these two are not.
      if (f.op === 'is') ok = f.key === 'null' || f.key === 'unknown';
      else if (f.op === 'isdistinct') ok = true;
      else return false;
    } else ok = holds(f, raw);
    if (ok === f.negate) return false;
  }
  return true;
}
