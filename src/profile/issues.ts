/** zod issues → one plain-English message per problem, with the field path it belongs to. */
import type { z } from 'zod';
import { DURATION_HINT } from './duration.js';
import {
  isIntegerSchema,
  metaOf,
  objectShape,
  placesOfField,
  schemaAt,
  typeLabel,
  type PathSegment,
  type Schema,
} from './introspect.js';
import { isUnquotedPlace, looksSecretValue, redactAt } from './secrets.js';
import { REDACTED } from '../redact/redact.js';
import { closestKey } from './suggest.js';

export interface FieldProblem {
  path: PathSegment[];
  message: string;
  /** What to point at: the value, the key (unknown fields) or the parent (missing fields). */
  at: 'key' | 'value' | 'parent';
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value at `path` in `data`, and whether the path exists. */
export function valueAt(
  data: unknown,
  path: readonly PathSegment[],
): { exists: boolean; value: unknown } {
  let v: unknown = data;
  for (const seg of path) {
    if (Array.isArray(v) && Number(seg) < v.length) v = v[Number(seg)];
    else if (isPlainObject(v) && Object.hasOwn(v, String(seg))) v = v[String(seg)];
    else return { exists: false, value: undefined };
  }
  return { exists: true, value: v };
}

const MAX_SHOWN_CHARS = 60;

/** A value as the user wrote it, short: `"3"`, `12`, `true`, `a list`. */
export function showValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'an empty value';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  if (typeof v === 'string') {
    const s = JSON.stringify(v);
    return s.length > MAX_SHOWN_CHARS ? `${s.slice(0, MAX_SHOWN_CHARS - 2)}…"` : s;
  }
  return String(v);
}

const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  object: 'a map',
  record: 'a map',
  array: 'a list',
};

const MAX_LISTED_KEYS = 12;

function unknownKeyMessage(root: Schema, objectPath: readonly PathSegment[], key: string): string {
  const objectSchema = schemaAt(root, objectPath);
  const shape = objectSchema ? objectShape(objectSchema) : null;
  const allowed = shape ? Object.keys(shape) : [];
  const suggestion = closestKey(key, allowed);
  if (suggestion !== null) return `unknown field (did you mean "${suggestion}"?)`;
  // A right key at the wrong level (join_rate under target) is the next commonest slip.
  const places = placesOfField(root, key);
  if (places.length > 0) return `unknown field (${key} is a field of ${places.join(', ')})`;
  if (allowed.length > 0 && allowed.length <= MAX_LISTED_KEYS)
    return `unknown field (known fields: ${allowed.join(', ')})`;
  return 'unknown field (see docs/PROFILE.md)';
}

function boundMessage(
  issue: { origin: string; inclusive?: boolean },
  bound: number | bigint,
  side: 'min' | 'max',
): string {
  const n = Number(bound);
  const plural = n === 1 ? '' : 's';
  switch (issue.origin) {
    case 'array':
    case 'set':
      return side === 'min'
        ? `must have at least ${n} item${plural}`
        : `must have at most ${n} item${plural}`;
    case 'string':
      if (side === 'min' && n === 1) return 'must not be empty';
      return side === 'min'
        ? `must be at least ${n} character${plural} long`
        : `must be at most ${n} character${plural} long`;
    default:
      if (side === 'min')
        return issue.inclusive ? `must be at least ${n}` : `must be greater than ${n}`;
      return issue.inclusive ? `must be at most ${n}` : `must be less than ${n}`;
  }
}

/**
 * The value a message may show: a list or map as is (showValue prints none of its contents), a
 * scalar redacted where credentials go or when it reads as a credential.
 */
function shownValue(root: Schema, path: readonly PathSegment[], value: unknown): unknown {
  const masked =
    value !== null &&
    value !== undefined &&
    (isUnquotedPlace(root, path) || looksSecretValue(value));
  return typeof value === 'object' && value !== null
    ? value
    : masked
      ? REDACTED
      : redactAt(root, path, value);
}

/** One issue's message in plain English, ending with what the field held ("(got 3)"). */
function issueMessage(
  issue: z.core.$ZodIssue,
  root: Schema,
  path: readonly PathSegment[],
  shown: unknown,
): string {
  const got = ` (got ${showValue(shown)})`;
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}${got}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}${got}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${got}`;
    case 'too_small': {
      // "greater than 0" for an integer reads better as "at least 1".
      const s = schemaAt(root, path);
      const int = s !== null && isIntegerSchema(s) && issue.origin === 'number' && !issue.inclusive;
      return int
        ? `must be at least ${Number(issue.minimum) + 1}${got}`
        : `${boundMessage(issue, issue.minimum, 'min')}${got}`;
    }
    case 'too_big':
      return `${boundMessage(issue, issue.maximum, 'max')}${got}`;
    case 'invalid_format':
      if (issue.format === 'url') return `must be a URL${got}`;
      if (issue.format === 'regex' && !issue.message.startsWith('Invalid'))
        return `${issue.message}${got}`;
      return `must be a valid ${issue.format}${got}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}${got}`;
    case 'invalid_union': {
      // zod already reports the one branch that matched the type; this is "no branch matched".
      const s = schemaAt(root, path);
      if (s !== null && metaOf(s).kind === 'duration')
        return `not a duration: ${showValue(shown)} (${DURATION_HINT})`;
      return `expected ${s ? typeLabel(s) : 'another type'}${got}`;
    }
    default:
      return issue.message;
  }
}

/**
 * Turns zod issues into problems. `data` is what was validated (after --set and env expansion),
 * read back for the "(got ...)" part so every message shows the offending value — redacted when
 * the field holds a secret.
 */
export function problemsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  data: unknown,
  root: Schema,
): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const issue of issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)) as PathSegment[];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({ path: [...path, key], message: unknownKeyMessage(root, path, key), at: 'key' });
      continue;
    }
    const { exists, value } = valueAt(data, path);
    if (!exists && path.length > 0) {
      out.push({ path, message: 'required field is missing', at: 'parent' });
      continue;
    }
    const message = issueMessage(issue, root, path, shownValue(root, path, value));
    out.push({ path, message, at: 'value' });
  }
  return out;
}
