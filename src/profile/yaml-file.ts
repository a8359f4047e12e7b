/**
 * A YAML file validated by a zod schema, with the profile's error reporting: every problem at
 * once, one line each, at the line and column it comes from (ProfileError). Used by the files
 * that are not profiles — campaigns and workloads — so they fail the same way.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { ProfileError, type ProfileProblem } from './errors.js';
import { problemsFromIssues } from './issues.js';
import { locate } from './locate.js';

/**
 * The YAML document of `text` and its line counter, for locating fields; a syntax error throws,
 * alone, since it makes every later position doubtful: the first one, with how many the parser
 * reported after it (an unclosed `[` yields a line for each later line it swallowed, noise).
 */
export function parseYamlDocument(
  text: string,
  source: string,
): { doc: Document.Parsed; lineCounter: LineCounter } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
    merge: true,
  });
  if (doc.errors.length > 0) {
    const first = doc.errors.reduce((a, b) => (b.pos[0] < a.pos[0] ? b : a));
    const { line, col } = lineCounter.linePos(first.pos[0]);
    const more = doc.errors.length - 1;
    const after = more > 0 ? ` (${more} more after it)` : '';
    throw new ProfileError([
      {
        source,
        line,
        col,
        field: null,
        message: `invalid YAML: ${first.message}${after}`,
        setIndex: null,
      },
    ]);
  }
  return { doc, lineCounter };
}

export function parseYamlFile<S extends z.ZodType>(
  text: string,
  schema: S,
  source: string,
): z.output<S> {
  const { doc, lineCounter } = parseYamlDocument(text, source);
  const data: unknown = doc.toJS({ maxAliasCount: 1000 });
  if (data === null || data === undefined)
    throw new ProfileError([
      { source, line: null, col: null, field: null, message: 'the file is empty', setIndex: null },
    ]);
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const problems: ProfileProblem[] = problemsFromIssues(result.error.issues, data, schema).map(
    (p) => {
      const target = p.at === 'parent' ? p.path.slice(0, -1) : p.path;
      const pos =
        p.at === 'parent' && target.length === 0
          ? null
          : locate(doc, lineCounter, target, p.at === 'key' ? 'key' : 'value');
      return {
        source,
        line: pos?.line ?? null,
        col: pos?.col ?? null,
        field: p.path.length ? p.path.join('.') : '(top level)',
        message: p.message,
        setIndex: null,
      };
    },
  );
  throw new ProfileError(problems);
}

export function loadYamlFile<S extends z.ZodType>(path: string, schema: S): z.output<S> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ProfileError([
      {
        source: path,
        line: null,
        col: null,
        field: null,
        message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        setIndex: null,
      },
    ]);
  }
  return parseYamlFile(text, schema, path);
}
