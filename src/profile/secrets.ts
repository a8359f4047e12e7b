/**
 * `${ENV_VAR}` expansion and secret redaction. Which fields take part is FieldMeta on the schema
 * (`env`, `secret`), so adding a credential field is one `.meta()` away from being hidden.
 */
import { isCredentialKey, REDACTED, redactUrl, urlSecrets } from '../redact/redact.js';
import {
  childSchema,
  fieldInfo,
  kindOf,
  objectShape,
  typeSchema,
  type PathSegment,
  type Schema,
} from './introspect.js';
import { closestKey } from './suggest.js';

export interface PathProblem {
  path: PathSegment[];
  message: string;
  /** The variable's name, when the problem is an unset variable. */
  unset?: string;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Expands `${NAME}` in the string values of `env` fields, in place (`data` is the loader's own
 * fresh copy of the document). `$${` stays a literal `${`. An unset variable is a problem, not an
 * empty string: a missing token would otherwise surface much later as a confusing 401.
 */
export function expandEnv(data: unknown, schema: Schema, env: NodeJS.ProcessEnv): PathProblem[] {
  const problems: PathProblem[] = [];
  const expand = (s: string, path: PathSegment[]): string =>
    s.replace(/\$\$\{|\$\{([^}]*)\}/g, (match, name: string | undefined) => {
      if (match === '$${') return '${';
      if (name === undefined || !VAR_NAME.test(name)) {
        problems.push({
          path,
          message: `${JSON.stringify(match)} is not a variable reference (use \${NAME}, or $\${ for a literal \${)`,
        });
        return match;
      }
      const v = env[name];
      // Set but empty is as useless as unset for a URL, key or header, and reads later as "got
      // \"\"".
      if (v === undefined || v === '') {
        problems.push({
          path,
          message: `environment variable ${name} is ${v === undefined ? 'not set' : 'set but empty'}`,
          ...(v === undefined ? { unset: name } : {}),
        });
        return match;
      }
      return v;
    });

  const walk = (
    container: Record<string, unknown> | unknown[],
    schema: Schema,
    path: PathSegment[],
  ): void => {
    const entries: [PathSegment, unknown][] = Array.isArray(container)
      ? container.map((v, i) => [i, v])
      : Object.entries(container);
    for (const [key, value] of entries) {
      const child = childSchema(schema, key);
      if (child === null) continue;
      const childPath = [...path, key];
      const set = (v: unknown): void => {
        (container as Record<PathSegment, unknown>)[key] = v;
      };
      if (fieldInfo(child).meta.env) {
        if (typeof value === 'string') set(expand(value, childPath));
        else if (isPlainObject(value)) {
          for (const [k, v] of Object.entries(value))
            if (typeof v === 'string') value[k] = expand(v, [...childPath, k]);
        }
      } else if (isPlainObject(value) || Array.isArray(value)) {
        walk(value, child, childPath);
      }
    }
  };
  if (isPlainObject(data)) walk(data, schema, []);
  return problems;
}

function redactKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      isCredentialKey(k) && v !== null && v !== undefined ? REDACTED : redactKeys(v),
    ]),
  );
}

/** A map entry that names where to connect rather than a credential: a header map's Host. */
const isHostKey = (key: PathSegment): boolean =>
  typeof key === 'string' && key.toLowerCase() === 'host';

/** Every value of a `secret: values` map as "***", its keys (and a Host entry) kept. */
function redactValues(value: unknown): unknown {
  if (!isPlainObject(value)) return value === undefined || value === null ? value : REDACTED;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      isHostKey(k) || v === null || v === undefined ? v : REDACTED,
    ]),
  );
}

function redactField(value: unknown, schema: Schema): unknown {
  switch (fieldInfo(schema).meta.secret) {
    case 'value':
      return value === undefined || value === null ? value : REDACTED;
    case 'url':
      return typeof value === 'string' ? redactUrl(value) : value;
    case 'keys':
      return redactKeys(value);
    case 'values':
      return redactValues(value);
    default:
      return redact(value, schema);
  }
}

/** A deep copy of `value` (valid for `schema`) with every secret replaced by "***". */
export function redact(value: unknown, schema: Schema): unknown {
  const t = typeSchema(schema);
  if (Array.isArray(value)) {
    return value.map((v, i) => {
      const child = kindOf(t) === 'array' ? childSchema(t, i) : null;
      return child ? redactField(v, child) : redactKeys(v);
    });
  }
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        const child = childSchema(t, k);
        return [k, child ? redactField(v, child) : redactKeys(v)];
      }),
    );
  }
  return value;
}

/** The value at `path` as it may be shown in an error message or a --set echo. */
export function redactAt(root: Schema, path: readonly PathSegment[], value: unknown): unknown {
  let s: Schema | null = root;
  for (let i = 0; i < path.length && s !== null; i++) {
    s = childSchema(s, path[i]);
    if (s === null) break;
    const secret = fieldInfo(s).meta.secret;
    const rest = path.slice(i + 1);
    if (secret === 'value') return value === undefined || value === null ? value : REDACTED;
    if (secret === 'url' && rest.length === 0)
      return typeof value === 'string' ? redactUrl(value) : value;
    if (secret === 'values') {
      if (rest.length === 0) return redactValues(value);
      return isHostKey(rest[0]) && rest.length === 1 ? value : REDACTED;
    }
    if (secret === 'keys') {
      if (rest.some((k) => typeof k === 'string' && isCredentialKey(k))) return REDACTED;
      return redactKeys(value);
    }
  }
  // A map or list set whole (`--set target={url: ...}`) may hold secrets further down.
  return s !== null ? redact(value, s) : value;
}

/** A field whose values a message never quotes: a secret one, or one marked `unquoted`. */
function isHiddenField(schema: Schema): boolean {
  const m = fieldInfo(schema).meta;
  return (
    m.unquoted === true || m.secret === 'value' || m.secret === 'keys' || m.secret === 'values'
  );
}

const firstWord = (key: string): string => key.toLowerCase().split(/[-_]/)[0];

/**
 * Whether a key the schema does not know stands where a credential goes: its did-you-mean is
 * a hidden field (`metrics_tokn` → metrics_token), or it shares its first word with one
 * (`database_ur`, `metrics_tokn_x`).
 */
function nearHiddenField(shape: Record<string, Schema>, key: string): boolean {
  const hidden = Object.keys(shape).filter((k) => isHiddenField(shape[k]));
  const suggestion = closestKey(key, Object.keys(shape));
  return (
    (suggestion !== null && hidden.includes(suggestion)) ||
    closestKey(firstWord(key), hidden.map(firstWord)) !== null
  );
}

/**
 * Whether the value at `path` must never be quoted in a message, decided by where it stands,
 * not by how it looks: at or under a secret or `unquoted` field (target.auth, target.database_url,
 * target.metrics_*), under a credential-like name, or under a mistyped key whose nearest field
 * is one of those. A typo is exactly when the schema cannot say what a value is, and a short
 * password such as "hunter2" looks like nothing.
 */
export function isUnquotedPlace(root: Schema, path: readonly PathSegment[]): boolean {
  if (path.some((seg) => typeof seg === 'string' && looksSecretName(seg))) return true;
  let s: Schema = root;
  for (const seg of path) {
    const child = childSchema(s, seg);
    if (child === null) {
      const shape = objectShape(typeSchema(s));
      return shape !== null && nearHiddenField(shape, String(seg));
    }
    if (isHiddenField(child)) return true;
    s = child;
  }
  return false;
}

/**
 * A field name that reads as a credential, even one the schema does not know (`api_key`,
 * `anon_key`).
 */
export function looksSecretName(name: string): boolean {
  return (
    isCredentialKey(name) ||
    /(^|_)(api|anon|service|access|private)?_?key$|secret|(^|_)token$|passw|jwt|credential|bearer|(^|_)auth(_|$)/i.test(
      name,
    )
  );
}

/**
 * A value that reads as a credential wherever it is written: a JWT, or a long run of key-like
 * characters.
 */
export function looksSecretValue(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.test(value)) return true;
  return (
    /^[A-Za-z0-9_\-+/=.]{20,}$/.test(value) &&
    /[A-Za-z]/.test(value) &&
    /\d/.test(value) &&
    !/^[a-z]+:\/\//.test(value)
  );
}

/** A secret where it stands in a profile document, as written there. */
export interface SecretLeaf {
  path: PathSegment[];
  value: unknown;
  /**
   * value: a field marked `secret: value`; url: a URL field that may carry a password or token;
   * key: a value under a credential-like key (a param, a tenant config) or any value of a
   * `secret: values` map (a header but Host).
   */
  kind: 'value' | 'url' | 'key';
  /** The profile expands `${ENV}` here. */
  env: boolean;
}

const entriesOf = (value: unknown): [PathSegment, unknown][] =>
  Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : isPlainObject(value)
      ? Object.entries(value)
      : [];

/**
 * The strings and numbers under credential keys, at any depth; only a top-level string of an `env`
 * map is expanded.
 */
function keyedLeaves(value: unknown, path: PathSegment[], env: boolean, out: SecretLeaf[]): void {
  const walk = (node: unknown, at: PathSegment[], depth: number): void => {
    for (const [k, v] of entriesOf(node)) {
      if (
        typeof k === 'string' &&
        isCredentialKey(k) &&
        (typeof v === 'string' || typeof v === 'number')
      )
        out.push({
          path: [...at, k],
          value: v,
          kind: 'key',
          env: env && depth === 0 && typeof v === 'string',
        });
      else walk(v, [...at, k], depth + 1);
    }
  };
  walk(value, path, 0);
}

/**
 * The one walk of a document (valid for `schema`) for its secrets, in document order: the
 * fields the schema marks `secret`, every value of a `secret: values` map but its Host, and the
 * values under credential keys of maps it does not describe. secretValues and `rtcap k8s`
 * (k8s/secrets) read it.
 */
export function secretLeaves(
  value: unknown,
  schema: Schema,
  path: PathSegment[] = [],
  out: SecretLeaf[] = [],
): SecretLeaf[] {
  const t = typeSchema(schema);
  for (const [k, v] of entriesOf(value)) {
    const child = childSchema(t, k);
    const at = [...path, k];
    if (child === null) {
      keyedLeaves(v, at, false, out);
      continue;
    }
    const meta = fieldInfo(child).meta;
    const env = meta.env === true;
    if (meta.secret === 'value' || meta.secret === 'url')
      out.push({ path: at, value: v, kind: meta.secret, env });
    else if (meta.secret === 'keys') keyedLeaves(v, at, env, out);
    else if (meta.secret === 'values') {
      for (const [hk, hv] of entriesOf(v))
        if (!isHostKey(hk) && (typeof hv === 'string' || typeof hv === 'number'))
          out.push({
            path: [...at, hk],
            value: hv,
            kind: 'key',
            env: env && typeof hv === 'string',
          });
    } else secretLeaves(v, child, at, out);
  }
  return out;
}

/**
 * Every secret value in `value` (valid for `schema`): what `redact` hides, as plain strings, so
 * the run can hide them verbatim wherever they turn up (redact/redact.ts registerSecrets).
 */
export function secretValues(value: unknown, schema: Schema): string[] {
  return secretLeaves(value, schema).flatMap(({ kind, value: v }) =>
    kind === 'url'
      ? typeof v === 'string'
        ? urlSecrets(v)
        : []
      : typeof v === 'string' || (kind === 'key' && typeof v === 'number')
        ? [String(v)]
        : [],
  );
}
