/** ProfileError: every problem of a profile, one line each, in file order. */
import { clipLongRuns } from '../redact/redact.js';

export interface ProfileProblem {
  /** The profile's path (or "profile" for text without one), or `--set <arg>`. */
  source: string;
  /**
   * 1-based position in the file; null for a missing top-level field, a file or a --set problem.
   */
  line: number | null;
  col: number | null;
  /** Dotted field path (`load.steps.0.duration`); null for YAML syntax and file problems. */
  field: string | null;
  message: string;
  /** Index of the --set argument the problem belongs to; null for the file. */
  setIndex: number | null;
}

/** One line; a value or key longer than a line is shortened (redact/redact.ts clipLongRuns). */
export function formatProblem(p: ProfileProblem): string {
  const where = p.line === null ? p.source : `${p.source}:${p.line}:${p.col ?? 1}`;
  return clipLongRuns(
    p.field === null ? `${where}: ${p.message}` : `${where}: ${p.field}: ${p.message}`,
  );
}

/**
 * File problems first (those without a line, then by line and column), then --set problems in
 * argument order.
 */
function compareProblems(a: ProfileProblem, b: ProfileProblem): number {
  const rank = (p: ProfileProblem): number[] =>
    p.setIndex !== null
      ? [2, p.setIndex, 0]
      : p.line === null
        ? [0, 0, 0]
        : [1, p.line, p.col ?? 0];
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i] - rb[i];
  return 0;
}

export class ProfileError extends Error {
  readonly problems: readonly ProfileProblem[];

  constructor(problems: readonly ProfileProblem[]) {
    // Array.prototype.sort is stable, so problems on one line keep the schema's field order.
    const sorted = [...problems].sort(compareProblems);
    const lines = [...new Set(sorted.map(formatProblem))];
    super(lines.join('\n'));
    this.name = 'ProfileError';
    this.problems = sorted;
  }
}
