/**
 * The verdict of one quota from its three phases (pure). A quota is `pass` only when every
 * claim is shown: no refusal below, the expected refusal above with its onset within the
 * tolerance, recovery back below. A phase whose offered load fell short of its target shows
 * nothing about that target: with no refusal to the contrary the row is `inconclusive`,
 * never `pass` (a quota that admitted 50 % of its value has not been shown to admit 80 %).
 * A failure still fails: a refusal below at even less load than planned is a refusal below.
 */
import type { Quotas } from '../profile/schema.js';
import type { PhaseEvidence, QuotaName, QuotaOutcome, QuotaRow } from '../result/quotas.js';
import { num, pct, QUOTA_REASONS, QUOTA_UNITS } from './vocabulary.js';

export interface QuotaPhases {
  below: PhaseEvidence;
  above: PhaseEvidence;
  recovery: QuotaRow['recovery'];
}

export interface JudgeInput {
  quota: QuotaName;
  declared: number;
  expectedOnset: number;
  settings: Pick<Quotas, 'tolerance' | 'min_offered_ratio'>;
  phases: QuotaPhases;
  onset: number | null;
  extraFailures?: string[];
}

export function topReason(reasons: Record<string, number>): string {
  const e = Object.entries(reasons).sort((a, b) => b[1] - a[1]);
  return e.length ? e.map(([r, n]) => `${r} ×${n}`).join(', ') : 'none';
}

/** "offered 25.6 of 32 joins/s (80 %)", or null when the phase reached its target. */
export function shortfall(p: PhaseEvidence, unit: string, minRatio: number): string | null {
  if (p.offered === null) return `offered load not measured (target ${num(p.target)} ${unit})`;
  if (p.target <= 0 || p.offered >= minRatio * p.target) return null;
  const skipped = p.skipped > 0 ? `; ${num(p.skipped)} actions skipped` : '';
  return `offered ${num(p.offered)} of ${num(p.target)} ${unit} (${((p.offered / p.target) * 100).toFixed(1)} %, under ${pct(minRatio)})${skipped}`;
}

function offeredText(p: PhaseEvidence, unit: string): string {
  const skipped = p.skipped > 0 ? `, ${num(p.skipped)} skipped` : '';
  return p.offered === null
    ? ''
    : ` (offered ${num(p.offered)} of ${num(p.target)} ${unit}${skipped})`;
}

/**
 * What the below and above phases show: a refusal below, the expected refusal above or why it is
 * missing, and any refusal for another reason; each failure or inconclusive claim in that order.
 */
function phaseFindings(
  ph: QuotaPhases,
  unit: string,
  minRatio: number,
  expected: string,
): { failures: string[]; inconclusive: string[]; expectedAbove: number } {
  const failures: string[] = [];
  const inconclusive: string[] = [];
  const belowShort = shortfall(ph.below, unit, minRatio);
  const aboveShort = shortfall(ph.above, unit, minRatio);
  if (ph.below.rejections > 0)
    failures.push(
      `rejected below the declared value: ${ph.below.rejections} at ${ph.below.load} (${topReason(ph.below.reasons)})`,
    );
  else if (belowShort)
    inconclusive.push(`below: ${belowShort} — no evidence that ${ph.below.load} is admitted`);
  const expectedAbove = Object.entries(ph.above.reasons)
    .filter(([r]) => r.includes(expected))
    .reduce((a, [, n]) => a + n, 0);
  if (expectedAbove === 0) {
    if (ph.above.rejections > 0)
      failures.push(`rejections above, but not "${expected}": ${topReason(ph.above.reasons)}`);
    else if (aboveShort)
      inconclusive.push(`above: ${aboveShort} — too little load to expect a refusal`);
    else failures.push(`no rejection above the declared value (${ph.above.load})`);
  }
  const others = [ph.below, ph.above, ph.recovery]
    .flatMap((p) => Object.keys(p.reasons))
    .filter((r) => !r.includes(expected));
  if (others.length) failures.push(`unexpected refusal: ${[...new Set(others)].join('; ')}`);
  return { failures, inconclusive, expectedAbove };
}

/** The onset off the declared value by more than the tolerance, or unmeasurable though refused. */
function onsetFailure(i: JudgeInput, unit: string, expectedAbove: number): string | null {
  const { onset, expectedOnset } = i;
  const { tolerance } = i.settings;
  if (onset === null)
    return expectedAbove > 0 || i.phases.below.rejections > 0 ? 'onset not measurable' : null;
  if (Math.abs(onset - expectedOnset) <= tolerance * expectedOnset) return null;
  return `onset ${num(onset)} ${unit} is ${pct(onset / expectedOnset - 1)} off the declared ${num(expectedOnset)} ${unit} (tolerance ${pct(tolerance)})`;
}

/** Not recovered back below, or only after the recovery window. */
function recoveryFailure(rec: QuotaPhases['recovery']): string | null {
  if (rec.recovered_after_ms === null)
    return `not recovered back below (${rec.load}; window ${num(rec.window_ms / 1000)} s)`;
  if (rec.recovered_after_ms > rec.window_ms)
    return `recovered only after ${num(rec.recovered_after_ms / 1000)} s, window ${num(rec.window_ms / 1000)} s`;
  return null;
}

/** The row's one line of evidence: each phase's load, what it offered and what was refused. */
function evidenceLine(i: JudgeInput, unit: string, expectedAbove: number): string {
  const { onset, expectedOnset, phases: ph } = i;
  const expected = QUOTA_REASONS[i.quota];
  const rec = ph.recovery;
  const onsetText =
    onset === null
      ? 'no onset'
      : `onset ${num(onset)} ${unit} (${onset >= expectedOnset ? '+' : ''}${((onset / expectedOnset - 1) * 100).toFixed(1)} %)`;
  return [
    `below ${ph.below.load}${offeredText(ph.below, unit)}: ${ph.below.rejections} rejected`,
    `above ${ph.above.load}${offeredText(ph.above, unit)}: ${expectedAbove} "${expected}", ${onsetText}`,
    `back below: ${rec.recovered_after_ms === null ? 'not recovered' : rec.rejections === 0 ? 'no refusal' : `recovered after ${num(rec.recovered_after_ms / 1000)} s`}`,
  ].join('; ');
}

export function judgeQuota(i: JudgeInput): QuotaRow {
  const { quota, declared, expectedOnset, onset, phases: ph } = i;
  const expected = QUOTA_REASONS[quota];
  const unit = QUOTA_UNITS[quota];
  const found = phaseFindings(ph, unit, i.settings.min_offered_ratio, expected);
  const { inconclusive, expectedAbove } = found;
  const failures = [...(i.extraFailures ?? []), ...found.failures];
  for (const f of [onsetFailure(i, unit, expectedAbove), recoveryFailure(ph.recovery)])
    if (f !== null) failures.push(f);
  const result: QuotaOutcome = failures.length
    ? 'fail'
    : inconclusive.length
      ? 'inconclusive'
      : 'pass';
  return {
    quota,
    declared,
    unit,
    result,
    pass: result === 'pass',
    expected_reason: expected,
    onset,
    expected_onset: expectedOnset,
    below: ph.below,
    above: ph.above,
    recovery: ph.recovery,
    failures,
    inconclusive,
    evidence: evidenceLine(i, unit, expectedAbove),
  };
}
