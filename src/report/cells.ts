/**
 * Cell formatters shared by the scenario sections, so "verdict", "latency" and "delivery"
 * read the same in every table.
 */
import type { SafeLines } from '../model/capacity-row.js';
import { DASH, fmtInt, fmtMs, fmtPct, fmtRatioPct, INCOMPLETE_LABEL } from '../model/format.js';
import {
  fewSampleKeys,
  isFewSamples,
  MIN_SAMPLES_BEYOND,
  samplesNeeded,
  type PercentileKey,
} from '../result/percentile-samples.js';
import type { Percentiles, StepResult } from '../result/result.js';

/**
 * The verdict, with what a reader must know next to it: a generator-bound step is not
 * server capacity, an incomplete step covers only part of its window, and a stable step
 * over a safe line is near the limit (docs/METHOD.md §1.1 and §1.2 call
 * such steps "near the limit" and "safe line").
 */
export function verdictCell(step: StepResult, safe: SafeLines): string {
  const parts: string[] = [step.verdict];
  if (step.verdict === 'generator-bound') parts[0] = 'generator-bound — not server capacity';
  // A step cut short before it carried its load measured something (joins): not "nothing".
  if (step.verdict === 'inconclusive')
    parts[0] =
      step.complete === false
        ? 'inconclusive — not measured at its load'
        : 'inconclusive — nothing measured';
  if (step.verdict === 'stable') {
    const over: string[] = [];
    if (step.server?.mem_pct != null && step.server.mem_pct >= safe.mem_pct)
      over.push(`memory over ${fmtPct(safe.mem_pct, 0)}`);
    if (step.server?.cpu_pct != null && step.server.cpu_pct >= safe.cpu_pct)
      over.push(`CPU over ${fmtPct(safe.cpu_pct, 0)}`);
    if (over.length) parts.push(`near limit: ${over.join(', ')} safe line`);
  }
  if (step.complete === false) parts.push(INCOMPLETE_LABEL);
  return parts.join(' — ');
}

/** The mark after a percentile that rests on too few samples (result/percentile-samples). */
export const FEW_SAMPLES_MARK = '†';

/** A percentile in ms, marked "†" when it rests on too few samples: "1,316 ms †". */
export function percentileCell(
  p: Partial<Percentiles> | null | undefined,
  key: PercentileKey,
): string {
  const v = p?.[key];
  return v != null && isFewSamples(p?.count, key) ? `${fmtMs(v)} ${FEW_SAMPLES_MARK}` : fmtMs(v);
}

/** "12 ms / 25 ms / 40 ms"; all missing → "—"; a percentile on too few samples marked "†". */
export function latencyTriple(p: Partial<Percentiles> | null | undefined): string {
  if (!p || (p.p50 == null && p.p95 == null && p.p99 == null)) return DASH;
  return `${percentileCell(p, 'p50')} / ${percentileCell(p, 'p95')} / ${percentileCell(p, 'p99')}`;
}

/**
 * The note that explains "†", naming the steps whose first-receipt percentiles it marks; null
 * when none is marked.
 */
export function fewSamplesNote(steps: readonly StepResult[]): string | null {
  const marked = steps.filter(
    (s) => s.latency_ms?.p95 != null && fewSampleKeys(s.latency_ms.count).some((k) => k !== 'p999'),
  );
  if (marked.length === 0) return null;
  const which = marked.map(
    (s) =>
      `step ${s.index}: ${fmtInt(s.latency_ms.count)} messages (${fewSampleKeys(s.latency_ms.count)
        .filter((k) => k !== 'p999')
        .join(', ')})`,
  );
  return `${FEW_SAMPLES_MARK} marks a percentile resting on too few samples: a pN needs at least ${MIN_SAMPLES_BEYOND} samples beyond it (p50 ${fmtInt(samplesNeeded('p50'))}, p95 ${fmtInt(samplesNeeded('p95'))}, p99 ${fmtInt(samplesNeeded('p99'))}, p99.9 ${fmtInt(samplesNeeded('p999'))}); below that it is the largest few samples, not a percentile. First-receipt latency of ${which.join('; ')}.`;
}

/** Delivery rate, with the lost count when short: "97.87% (2,130 lost)". */
export function deliveryCell(step: StepResult): string {
  const r = fmtRatioPct(step.delivery_rate);
  const lost = step.messages?.lost ?? 0;
  return step.delivery_rate !== null && step.delivery_rate < 1 && lost > 0
    ? `${r} (${fmtInt(lost)} lost)`
    : r;
}

/** Joined connections, or "23,800 of 25,000" when some did not join. */
export function connectionsCell(step: StepResult): string {
  const target = step.connections?.target ?? step.params.connections;
  const joined = step.connections?.joined;
  if (joined == null) return fmtInt(target);
  return joined === target ? fmtInt(joined) : `${fmtInt(joined)} of ${fmtInt(target)}`;
}

/** The step's label unless it is the default "step N". */
export function stepName(step: StepResult): string {
  return step.label && step.label !== `step ${step.index}`
    ? `${step.index} · ${step.label}`
    : String(step.index);
}

/**
 * The target's URL as a report shows it. A run stopped before its built-in server was up has no
 * URL: it says so instead of leaving the cell empty.
 */
export function targetUrlCell(target: { url: string; builtin?: boolean }): string {
  if (target.url) return target.url;
  return target.builtin ? 'not started (the run stopped before the built-in server was up)' : '—';
}
