/**
 * Every flag value checked before anything starts, as a profile field is: one rule per flag,
 * applied by yargs (`coerce`) while it parses, so a bad value ends the command with exit 2 and
 * one line naming the flag, the value and what it accepts — never a run that records
 * "NaN workers". `checked(flag, rule)` is the option config every command uses for a
 * numeric, enumerated, time, URL or path flag.
 */
import { accessSync, constants, existsSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { wsUrlProblem } from '../profile/ws-url.js';
import { allowedCpuList, cpusOutside, parseCpuList } from '../util/cpu-list.js';
import { redactUrl, registerSecrets, urlSecrets } from '../redact/redact.js';

/** A usage error: main.ts prints its message as one line and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A rule: the parsed value, or a string saying what the flag accepts. */
export type Rule<T> = (raw: string) => T | { problem: string };

const problem = (text: string) => ({ problem: text });

/** A whole number in [min, max]. */
export function int(min: number, max: number): Rule<number> {
  return (raw) => {
    const n = /^[+-]?\d+(\.0*)?$|^[+-]?\d+(\.\d+)?e\+?\d+$/i.test(raw.trim()) ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < min || n > max)
      return problem(`expected a whole number from ${min} to ${max.toLocaleString('en-US')}`);
    return n;
  };
}

/** A number above `above` (exclusive) and at most `max`. */
export function num(above: number, max: number): Rule<number> {
  return (raw) => {
    const n = raw.trim() === '' ? NaN : Number(raw);
    if (!Number.isFinite(n) || n <= above || n > max)
      return problem(`expected a number above ${above} and at most ${max.toLocaleString('en-US')}`);
    return n;
  };
}

export const port: Rule<number> = (raw) => {
  const n = int(0, 65535)(raw);
  return typeof n === 'number'
    ? n
    : problem('expected a port number from 0 to 65535 (0: any free port)');
};

export function oneOf<V extends string>(values: readonly V[]): Rule<V> {
  return (raw) =>
    (values as readonly string[]).includes(raw)
      ? (raw as V)
      : problem(`expected one of ${values.join(', ')}`);
}

/** Text matching `re`; `what` says what it accepts. */
export function matching(re: RegExp, what: string): Rule<string> {
  return (raw) => (re.test(raw) ? raw : problem(`expected ${what}`));
}

/** A taskset CPU list: 0, 1-3, 0,2,4-5. */
export const cpuList = matching(
  /^\d+(-\d+)?(,\d+(-\d+)?)*$/,
  'a CPU list as taskset takes it (e.g. 1, 0-3 or 0,2)',
);

/**
 * A CPU list of CPUs this process may run on (`allowed`, by default its affinity): pinning to
 * any other fails, and is refused before anything starts.
 */
export function usableCpus(allowed: () => string = allowedCpuList): Rule<string> {
  return (raw) => {
    const list = cpuList(raw);
    if (typeof list !== 'string') return list;
    if (parseCpuList(raw) === null)
      return problem('expected a CPU list as taskset takes it (ranges low-high)');
    const may = allowed();
    const outside = cpusOutside(raw, may);
    if (outside.length === 0) return raw;
    const named = outside.slice(0, 5).join(', ') + (outside.length > 5 ? ', …' : '');
    return problem(
      `expected CPUs this process may run on (${may}); CPU ${named} ${outside.length === 1 ? 'is' : 'are'} not among them`,
    );
  };
}

/** An ISO 8601 time. */
export const isoTime: Rule<string> = (raw) =>
  /^\d{4}-\d\d-\d\d/.test(raw) && !Number.isNaN(Date.parse(raw))
    ? raw
    : problem('expected an ISO 8601 time (e.g. 2026-11-30T19:30:00Z)');

const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
};

function statOf(p: string): Stats | string {
  try {
    return statSync(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    return FILE_PROBLEMS[code] ?? code;
  }
}

/** An existing regular file. */
export const file: Rule<string> = (raw) => {
  const st = statOf(raw);
  if (typeof st === 'string') return problem(st);
  return st.isFile() ? raw : problem('is a directory, expected a file');
};

/** An existing directory. */
export const dir: Rule<string> = (raw) => {
  const st = statOf(raw);
  if (typeof st === 'string') return problem(st);
  return st.isDirectory() ? raw : problem('is a file, expected a directory');
};

/**
 * A directory to write into: it may not exist yet, but it is not a file, and it (or the nearest
 * folder above it that exists) can be written — a read-only mount stops root too.
 */
export const outDir: Rule<string> = (raw) => {
  const st = statOf(raw);
  if (typeof st !== 'string' && !st.isDirectory())
    return problem('is a file, expected a directory to write into');
  const unwritable = writeProblem(raw);
  return unwritable ? problem(unwritable) : raw;
};

/** Why nothing can be created in `path` (or its nearest existing ancestor), or null. */
function writeProblem(path: string): string | null {
  let at = resolve(path);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  try {
    accessSync(at, constants.W_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    const why = code === 'EROFS' ? 'read-only file system' : (FILE_PROBLEMS[code] ?? code);
    return `cannot be written (${at === resolve(path) ? '' : `${at}: `}${why})`;
  }
}

/**
 * A file to write: it may not exist yet, but it is not a directory, the directory it goes in
 * exists, and it (or that directory) can be written.
 */
export const outFile: Rule<string> = (raw) => {
  const st = statOf(raw);
  if (typeof st !== 'string' && st.isDirectory())
    return problem('is a directory, expected a file to write');
  const parent = dirname(resolve(raw));
  const up = statOf(parent);
  if (typeof up === 'string' || !up.isDirectory())
    return problem(`no directory ${parent} to write it in`);
  const unwritable = writeProblem(raw);
  return unwritable ? problem(unwritable) : raw;
};

/** An existing file, or an http(s) URL. */
export const fileOrHttpUrl: Rule<string> = (raw) => (/^https?:\/\//.test(raw) ? raw : file(raw));

/**
 * A WebSocket URL of a target (ws:// or wss://, a valid port). A hosted Supabase project's
 * https:// address gets its socket URL suggested.
 */
export const wsUrl: Rule<string> = (raw) => {
  registerSecrets(urlSecrets(raw));
  const supabase = /^https?:\/\/([a-z0-9-]+)\.supabase\.(co|in)\/?$/i.exec(raw);
  if (supabase)
    return problem(
      `expected a WebSocket URL: for a Supabase project, wss://${supabase[1]}.supabase.${supabase[2]}/realtime/v1/websocket`,
    );
  const http = /^(https?):\/\/([^/?#]+)([^?#]*)/i.exec(raw);
  if (http)
    return problem(
      `expected ws:// or wss:// (the WebSocket form: ${http[1].toLowerCase() === 'https' ? 'wss' : 'ws'}://${http[2]}${http[3]}…)`,
    );
  const why = wsUrlProblem(raw);
  return why === null ? raw : problem(why);
};

/** How a flag's value is shown in an error: a URL without its secrets. */
const shown = (raw: string) => (/^[a-z]+:\/\//i.test(raw) ? redactUrl(raw) : raw);

/** Applies `rule` to one value; a UsageError naming `label` when it does not hold. */
function applyRule<T>(label: string, rule: Rule<T>, raw: unknown): T {
  if (Array.isArray(raw)) throw new UsageError(`${label} given ${raw.length} times: give it once`);
  const text = raw === undefined || raw === null || raw === true ? '' : String(raw);
  if (text === '') throw new UsageError(`${label}: needs a value (${describeRule(rule)})`);
  const out = rule(text);
  if (isProblem(out)) throw new UsageError(`${label} ${shown(text)}: ${out.problem}`);
  return out;
}

/** What a rule accepts, in its own words (its answer to an empty value). */
function describeRule<T>(rule: Rule<T>): string {
  const out = rule('');
  return isProblem(out) ? out.problem : 'a value';
}

function isProblem(x: unknown): x is { problem: string } {
  return (
    typeof x === 'object' &&
    x !== null &&
    'problem' in x &&
    typeof (x as { problem: unknown }).problem === 'string'
  );
}

interface CheckedConfig {
  describe?: string;
  array?: boolean;
  demandOption?: boolean;
  hidden?: boolean;
  default?: string;
}

type Checked<T, C extends CheckedConfig> = C & {
  type: 'string';
  coerce: (raw: unknown) => C['array'] extends true ? T[] : T;
};

function withRule<T, C extends CheckedConfig>(
  label: string,
  rule: Rule<T>,
  config: C,
): Checked<T, C> {
  const coerce = (raw: unknown) => {
    if (!config.array) return applyRule(label, rule, raw);
    return ((Array.isArray(raw) ? raw : [raw]) as unknown[]).map((v) => applyRule(label, rule, v));
  };
  return { ...config, type: 'string', coerce } as Checked<T, C>;
}

/**
 * The yargs option config of a checked flag: read as text (so "abc" is seen as "abc", not
 * NaN), then the rule; with `array`, the rule on each value.
 */
export function checked<T, const C extends CheckedConfig = Record<never, never>>(
  flag: string,
  rule: Rule<T>,
  config: C = {} as C,
): Checked<T, C> {
  return withRule(`--${flag}`, rule, config);
}

/** A positional argument checked by a rule: the same message, named as the argument. */
export function checkedPositional<T, const C extends CheckedConfig = Record<never, never>>(
  name: string,
  rule: Rule<T>,
  config: C = {} as C,
): Checked<T, C> {
  return withRule(name, rule, config);
}

/**
 * A file, or a directory holding `name` (then that file): `--capacity reports/<campaign>` is
 * taken as its capacity.json, `report run/result.json` as its run directory's.
 */
export function fileOrDirWith(name: string): Rule<string> {
  return (raw) => {
    const st = statOf(raw);
    if (typeof st === 'string') return problem(st);
    if (st.isFile()) return raw;
    return typeof statOf(join(raw, name)) === 'string'
      ? problem(`is a directory without ${name}`)
      : join(raw, name);
  };
}

/** A run directory (holding result.json), or its result.json: the directory either way. */
export const runDir: Rule<string> = (raw) => {
  const st = statOf(raw);
  if (typeof st === 'string') return problem(st);
  if (st.isFile())
    return basename(raw) === 'result.json'
      ? dirname(raw)
      : problem('is a file, expected a run directory (with result.json)');
  return typeof statOf(join(raw, 'result.json')) === 'string'
    ? problem('no result.json in it (expected a run directory)')
    : raw;
};

/** An existing file or directory. */
export const exists: Rule<string> = (raw) => {
  const st = statOf(raw);
  return typeof st === 'string' ? problem(st) : raw;
};
