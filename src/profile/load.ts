/**
 * Loading a profile: YAML text → --set overrides → ${ENV} expansion → zod validation with
 * defaults → Profile, plus a redacted copy for result.json. Every problem found on the way is
 * reported at once, one line each, pointing at the line and column (or the --set argument) it
 * comes from.
 */
import { readFile } from 'node:fs/promises';
import type { Document, LineCounter } from 'yaml';
import { ProfileError, type ProfileProblem } from './errors.js';
import type { PathSegment } from './introspect.js';
import { problemsFromIssues, type FieldProblem } from './issues.js';
import { locate } from './locate.js';
import { applySets, type SetOverride } from './overrides.js';
import { parseYamlDocument } from './yaml-file.js';
import { profileSchema, type Profile } from './schema.js';
import { REDACTED, redactText, registerSecrets } from '../redact/redact.js';
import {
  expandEnv,
  isUnquotedPlace,
  looksSecretValue,
  redact,
  redactAt,
  secretValues,
} from './secrets.js';

export interface LoadedProfile {
  profile: Profile;
  /** The path the profile was read from, as given; null for text parsed directly. */
  path: string | null;
  /** The resolved profile (overrides, env and defaults applied) with secrets replaced by "***". */
  redacted: unknown;
  /**
   * With `allowUnsetEnv`: each `${VAR}` that is not set here and the field holding it. Those
   * fields are left out of `profile` (every other field was checked): a profile to look at,
   * never one to run.
   */
  unsetEnv: { name: string; field: string }[];
}

export interface LoadOptions {
  /** `--set path=value` arguments, applied in order. */
  sets?: readonly string[];
  /** Environment for `${VAR}` expansion; process.env when omitted. */
  env?: NodeJS.ProcessEnv;
  /**
   * Check a profile whose variables are set elsewhere (CI, pods): an unset one is listed, not a
   * problem.
   */
  allowUnsetEnv?: boolean;
}

/** Aliases let one step shape be reused; the cap keeps a "billion laughs" file from exploding. */
const MAX_ALIAS_COUNT = 1000;

const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
};

export async function loadProfile(path: string, opts: LoadOptions = {}): Promise<LoadedProfile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const why = FILE_ERRORS[code] ?? (err as Error).message;
    throw new ProfileError([wholeFileProblem(path, `cannot read profile: ${why}`)]);
  }
  return parseProfile(text, { ...opts, path });
}

const fieldText = (path: readonly PathSegment[]): string =>
  path.length === 0 ? '(top level)' : path.join('.');

const startsWith = (path: readonly PathSegment[], prefix: readonly PathSegment[]): boolean =>
  prefix.length <= path.length && prefix.every((seg, i) => String(seg) === String(path[i]));

/**
 * The argument as it may be printed: a value is not echoed where a credential goes (under
 * target.auth, target.database_url, target.metrics_*, a credential-like key, or a mistyped key
 * whose nearest field is one of those), nor when it reads as a credential; decided by the
 * path, since a typo is exactly when the schema cannot tell and "hunter2" looks like nothing.
 */
function echoSet(arg: string, path: readonly string[] | null, value: unknown): string {
  if (path === null) {
    const eq = arg.indexOf('=');
    const argPath = eq > 0 ? arg.slice(0, eq).split('.') : null;
    // Not a usable path=value: whatever follows a credential-like word or place is hidden.
    const masked =
      /key|secret|token|passw|jwt|auth/i.test(arg) ||
      (argPath !== null && isUnquotedPlace(profileSchema, argPath));
    return redactText(masked ? arg.replace(/([=:]).*$/, `$1${REDACTED}`) : arg);
  }
  const hidden = `${path.join('.')}=${REDACTED}`;
  if (value === null || value === undefined) return arg;
  if (isUnquotedPlace(profileSchema, path)) return hidden;
  const shown = redactAt(profileSchema, path, value);
  if (JSON.stringify(shown) !== JSON.stringify(value))
    return `${path.join('.')}=${typeof shown === 'string' ? shown : REDACTED}`;
  if (looksSecretValue(value)) {
    // Hidden from every later line too (the terminal redaction), not only from this one.
    if (typeof value === 'string' || typeof value === 'number') registerSecrets([String(value)]);
    return hidden;
  }
  return arg;
}

/** A problem of the profile as a whole: no line, no field. */
function wholeFileProblem(source: string, message: string): ProfileProblem {
  return { source, line: null, col: null, field: null, message, setIndex: null };
}

/** The document as plain data; the whole file's problem when it is not YAML, or empty. */
function documentData(doc: Document, source: string, before: readonly ProfileProblem[]): unknown {
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    throw new ProfileError([wholeFileProblem(source, `invalid YAML: ${(err as Error).message}`)]);
  }
  if (data === null || data === undefined)
    throw new ProfileError([...before, wholeFileProblem(source, 'the profile is empty')]);
  return data;
}

/**
 * `${ENV}` expanded, then the schema: its parse, the variables left unset (with allowUnsetEnv;
 * their fields removed from `data`) and one problem per field.
 */
function validateData(data: unknown, opts: LoadOptions) {
  const expansion = expandEnv(data, profileSchema, opts.env ?? process.env);
  const unsetEnv = opts.allowUnsetEnv ? expansion.filter((p) => p.unset !== undefined) : [];
  for (const u of unsetEnv) deleteAt(data, u.path);
  const envProblems = expansion.filter((p) => !unsetEnv.includes(p));
  // Known before anything is printed, even an error about another field: from here on, every
  // line rtcap writes hides these values verbatim.
  // Only the secret fields' values: a value taken from the environment into a URL field (the
  // common `url: ${RTCAP_URL}`) names the target and stays readable; its password and apikey are
  // hidden where they stand, as in a URL written in the file.
  registerSecrets(secretValues(data, profileSchema));
  const result = profileSchema.safeParse(data);
  const envPaths = new Set(envProblems.map((p) => p.path.join('.')));
  const fieldProblems: FieldProblem[] = [
    ...envProblems.map((p): FieldProblem => ({ ...p, at: 'value' })),
    // A field whose variable is unset would also fail validation on the unexpanded "${X}"; one line
    // is enough.
    ...(result.success ? [] : problemsFromIssues(result.error.issues, data, profileSchema)).filter(
      (p) => !envPaths.has(p.path.join('.')),
    ),
  ];
  return { result, unsetEnv, fieldProblems };
}

export function parseProfile(
  text: string,
  opts: LoadOptions & { path?: string } = {},
): LoadedProfile {
  const source = opts.path ?? 'profile';
  const { doc, lineCounter } = parseYamlDocument(text, source);

  const sets = opts.sets ?? [];
  const unquoted = (path: string[]): boolean => isUnquotedPlace(profileSchema, path);
  const { applied, problems: setProblems } = applySets(doc, sets, unquoted);
  // An override that could not be applied is reported, and validation still runs without it so
  // the other problems show up in the same pass.
  const problems: ProfileProblem[] = setProblems.map((p) => ({
    source: `--set ${echoSet(p.arg, p.argPath, p.value)}`,
    line: null,
    col: null,
    field: p.path.length > 0 ? p.path.join('.') : null,
    message: p.message,
    setIndex: sets.indexOf(p.arg),
  }));

  const data = documentData(doc, source, problems);
  const { result, unsetEnv, fieldProblems } = validateData(data, opts);
  problems.push(
    ...fieldProblems.map((p) => placeProblem(p, { doc, lineCounter, source, applied, sets })),
  );
  if (problems.length > 0) throw new ProfileError(problems);
  if (!result.success) throw new Error('unreachable: validation failed without issues');

  return {
    profile: result.data,
    path: opts.path ?? null,
    redacted: redact(result.data, profileSchema),
    unsetEnv: unsetEnv.map((u) => ({ name: u.unset!, field: fieldText(u.path) })),
  };
}

/** Removes the value at `path` (a field whose variable is unset: validated as if absent). */
function deleteAt(data: unknown, path: readonly PathSegment[]): void {
  let node: unknown = data;
  for (const seg of path.slice(0, -1))
    node =
      node && typeof node === 'object' ? (node as Record<PathSegment, unknown>)[seg] : undefined;
  if (node && typeof node === 'object' && path.length > 0)
    delete (node as Record<PathSegment, unknown>)[path[path.length - 1]];
}

const EMPTY_SET_HINT =
  ': nothing follows "=" (an unset shell variable expands to nothing; write \'${NAME}\' in single quotes and rtcap names it)';

/** Puts a field problem where the user can fix it: a line of the file, or a --set argument. */
function placeProblem(
  p: FieldProblem,
  where: {
    doc: Document;
    lineCounter: LineCounter;
    source: string;
    applied: readonly SetOverride[];
    sets: readonly string[];
  },
): ProfileProblem {
  const { doc, lineCounter, source, applied, sets } = where;
  const field = fieldText(p.path);
  // The last override that created or replaced an ancestor of this path owns the problem.
  for (let i = applied.length - 1; i >= 0; i--) {
    const o = applied[i];
    if (startsWith(p.path, o.root)) {
      // `--set target.auth.apikey=$KEY` with KEY unset reaches us as nothing after "=": the
      // shell expanded it, so its name is lost; say how it most likely happened.
      const hint =
        o.value === null && /\(got an empty value\)$/.test(p.message) ? EMPTY_SET_HINT : '';
      return {
        source: `--set ${echoSet(o.arg, o.path, o.value)}`,
        line: null,
        col: null,
        field,
        message: p.message + hint,
        setIndex: sets.indexOf(o.arg),
      };
    }
  }
  const target = p.at === 'parent' ? p.path.slice(0, -1) : p.path;
  const position =
    p.at === 'parent' && target.length === 0
      ? null
      : locate(doc, lineCounter, target, p.at === 'key' ? 'key' : 'value');
  return {
    source,
    line: position?.line ?? null,
    col: position?.col ?? null,
    field,
    message: p.message,
    setIndex: null,
  };
}
