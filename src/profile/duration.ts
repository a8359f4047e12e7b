/** How to write a duration; the tail of every "not a duration" message. */
export const DURATION_HINT = 'use e.g. 20s, 2m, 500ms or a number of seconds';

/** The strings parseDurationMs reads, as a regular expression (for the JSON Schema). */
export const DURATION_STRING_PATTERN =
  '^\\s*(?:\\d+(?:\\.\\d+)?|(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))+)\\s*$';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * "20s", "1m30s", "500ms", "1.5s", "2h" or a number of seconds → milliseconds; null if not a
 * duration.
 */
export function parseDurationMs(v: number | string): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v * 1000 : null;
  const s = v.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    matched = re.lastIndex;
  }
  return matched === s.length && matched > 0 ? total : null;
}

/** The shortest exact spelling parseDurationMs reads back: 500ms, 20s, 1.5s, 2m, 1h. */
export function formatDurationMs(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms / 1000}s`;
}
