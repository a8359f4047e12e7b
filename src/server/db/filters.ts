/**
 * Evaluating Postgres Changes filters (docs/PROTOCOL.md §7.2) against a change's column values;
 * parsing them is filter-parse.ts, each value's comparable form filter-values.ts.
 *
 * Evaluation is typed like the SQL `check_equality_op` (`val::type op val::type`): both sides are
 * normalised by the column's type and compared. A null or absent column value never matches
 * (the SQL comparison is null, and null is not visible), except for `is` and `isdistinct`, which
 * are defined on null. `match`/`imatch` use JavaScript regular expressions, which agree with
 * PostgreSQL's for ordinary patterns but not for every construct.
 */
import type { Filter } from './filter-parse.js';
import { compare, normalize, parseArrayLiteral, type Key } from './filter-values.js';

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
