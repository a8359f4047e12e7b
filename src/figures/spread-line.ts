/**
 * A generator process's line that covers more than one second. A process names each line by the
 * wall-clock second that just ended (generator/second-report); when its tick comes more than a
 * second late (its event loop was held, or the machine gave it no CPU), the one line holds the
 * counts of every second since its last line, `from` to `t`. The timeline spreads such a line
 * evenly over the seconds it covers, so no second is left without the process's line and none
 * holds the counts of others: its counts are split as evenly as whole numbers allow (the seconds
 * nearest `t` take the remainder, so the totals are exact), its gauges and health hold for every
 * piece, and its latency histogram stays with `t`, the only second it can be told apart in. Each
 * piece says how many seconds the line covered (`spread`), and a second's point how many of its
 * lines were spread (`spread_lines`): a rate read from such seconds is an even estimate, not a
 * count of when each message came.
 */
import type { SecondStats } from '../generator/ipc.js';

/**
 * The most seconds one line is spread over. A process whose tick comes later than this was not
 * busy but stopped (suspended) or its wall clock stepped: spreading would write as many seconds
 * at once (hours of them after a clock step) for time the process did not run, so such a line
 * counts in `t` alone, as a line of one second does.
 */
export const MAX_SPREAD_S = 30;

/** `total` in `parts` whole numbers as even as they go; the last ones take the remainder. */
export function evenParts(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  const rest = total - base * parts;
  return Array.from({ length: parts }, (_, i) => base + (i >= parts - rest ? 1 : 0));
}

/** Whether a line is a piece of one that covered several seconds (the timeline's `spread`). */
export function isSpreadPiece(s: SecondStats): boolean {
  return (s.spread ?? 1) > 1;
}

/** The seconds a line covers: `from` to `t`, or `t` alone. */
export function secondsCovered(s: SecondStats): number {
  return s.from !== undefined && s.from < s.t ? s.t - s.from + 1 : 1;
}

/**
 * `s` as one line per second it covers, oldest first; `s` itself when it covers one, or more
 * than MAX_SPREAD_S.
 */
export function spreadLine(s: SecondStats): SecondStats[] {
  const n = secondsCovered(s);
  if (n === 1 || n > MAX_SPREAD_S) return [s];
  const split = (v: number) => evenParts(v, n);
  const byKind = s.receivedByKind?.map(split);
  const received = byKind ? byKind[0].map((_, i) => byKind.reduce((a, k) => a + k[i], 0)) : null;
  const counts = {
    joins: split(s.joins),
    sent: split(s.sent),
    acked: split(s.acked ?? 0),
    received: received ?? split(s.received),
    bytes: split(s.bytes),
    errors: split(s.errors),
    disconnects: split(s.disconnects),
  };
  const reasons = Object.entries(s.errorReasons ?? {}).map(([r, v]) => [r, split(v)] as const);
  const classes = Object.entries(s.errorClasses ?? {}).map(([c, v]) => [c, split(v)] as const);
  const { from: _from, ...rest } = s;
  return Array.from({ length: n }, (_, i) => ({
    ...rest,
    t: s.t - n + 1 + i,
    joins: counts.joins[i],
    sent: counts.sent[i],
    acked: counts.acked[i],
    received: counts.received[i],
    ...(byKind ? { receivedByKind: byKind.map((k) => k[i]) } : {}),
    bytes: counts.bytes[i],
    errors: counts.errors[i],
    disconnects: counts.disconnects[i],
    histogram: i === n - 1 ? s.histogram : '',
    errorReasons: Object.fromEntries(reasons.map(([r, v]) => [r, v[i]]).filter(([, v]) => v !== 0)),
    ...(s.errorClasses
      ? {
          errorClasses: Object.fromEntries(
            classes.map(([c, v]) => [c, v[i]]).filter(([, v]) => v !== 0),
          ),
        }
      : {}),
    spread: n,
  }));
}
