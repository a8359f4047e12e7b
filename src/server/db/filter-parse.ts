/**
 * Parsing a Postgres Changes binding's `filter` string (docs/PROTOCOL.md §7.2), as Supabase's
 * `parse_subscription_params` does: comma-separated segments (commas inside `in.(...)` do not
 * split) ANDed together, each `column=op.value` with an optional `not.` prefix; `in.(a,b)`
 * becomes the array literal `{a,b}`; a double-quoted value is unquoted. Operators: the classic
 * `eq neq lt lte gt gte in` and the 2026 additions `like ilike is match imatch isdistinct`
 * ([version]: older servers refuse those with the parse error). JSON-path columns (`data->>key`)
 * are not supported: the database trigger refuses them as an unknown column. Evaluating the
 * parsed filters is filters.ts.
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
