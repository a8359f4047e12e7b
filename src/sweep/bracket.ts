/**
 * The bracket a search narrows, from the steps that stand as evidence: the lowest value that was
 * not stable above a stable one, and the highest stable value below it; and the knee in words.
 * Pure.
 */
import type { Sweep } from '../profile/schema.js';
import type { Verdict } from '../result/result.js';
import { fmtDriver } from './spec.js';

/** What the bracket reads of a step (sweep/plan's history items). */
interface BracketItem {
  value: number;
  verdict: Verdict;
  step: number;
}

/**
 * The bracket a search narrows: the lowest value that was not stable above a stable one, and
 * the highest stable value below it; null while every failure lies below every stable value
 * (or there is none).
 */
export function searchBracket<T extends BracketItem>(
  judged: readonly T[],
): { lo: T; hi: T } | null {
  const stable = judged.filter((h) => h.verdict === 'stable');
  if (stable.length === 0) return null;
  const lowestStable = Math.min(...stable.map((h) => h.value));
  const failed = judged.filter((h) => h.verdict !== 'stable' && h.value > lowestStable);
  if (failed.length === 0) return null;
  const hi = failed.reduce((a, b) => (b.value < a.value ? b : a));
  const lo = stable.filter((h) => h.value < hi.value).reduce((a, b) => (b.value > a.value ? b : a));
  return { lo, hi };
}

/**
 * "knee between connections 1,000 (stable, step 1) and 2,000 (degraded, step 2)": the search's
 * bracket in words ('' without one), and where broken began when that was higher.
 */
export function kneeWords(d: Sweep['driver'], judged: readonly BracketItem[]): string {
  const b = searchBracket(judged);
  if (!b) return '';
  const f = (v: number) => fmtDriver(d, v);
  const broken = judged
    .filter((h) => h.verdict === 'broken' && h.value > b.hi.value)
    .sort((x, y) => x.value - y.value)[0];
  const more =
    b.hi.verdict !== 'broken' && broken
      ? `; broken from ${f(broken.value)} (step ${broken.step})`
      : '';
  return `knee between ${d} ${f(b.lo.value)} (stable, step ${b.lo.step}) and ${f(b.hi.value)} (${b.hi.verdict}, step ${b.hi.step})${more}`;
}
