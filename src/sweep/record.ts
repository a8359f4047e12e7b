/**
 * What result.json keeps of a sweep (`result.sweep`): its points (value, phase, the recovery
 * probe before the step, the samples its percentile rested on), why it stopped, its knee;
 * enough to resume it and to report it. Pure.
 */
import { fmtInt } from '../model/format.js';
import { serverRejectionOf } from '../model/step-limit.js';
import type { SweepDriver } from '../profile/schema/sweep.js';
import type { RunResult, StepResult } from '../result/result.js';
import type { ProbePathKind } from '../recovery/paths.js';
import type { RecoveryRecord } from '../recovery/probe.js';
import { sweepKnee, type SweepStopKind } from './plan.js';
import type { SweepHistoryItem } from './history.js';
import type { SweepPhase } from './spec.js';

/** What a step's judged percentile rested on, and what the search did about it. */
export interface SweepSamples {
  /** The percentile the verdict judges: first-receipt latency, or join latency (join rate). */
  judged: 'latency p95' | 'join p95';
  count: number;
  min: number;
  /** What was done: "run again 2.4× longer (step 5)", "at the longest allowed (4×): short". */
  action: string | null;
  /**
   * Short of min, yet the missing samples could not change the verdict (sweep/settled), in words:
   * the step was not run again longer. Absent: not short, or not settled.
   */
  settled?: string;
}

export interface SweepPoint {
  /** StepResult.index of the step that ran this value. */
  step: number;
  value: number;
  phase: SweepPhase;
  /** Duration (join rate: ramp) as a multiple of load.steps.0's; absent: 1. */
  scale?: number;
  /** The recovery probe before the step (recovery/probe); absent when none ran. */
  recovery?: RecoveryRecord;
  samples?: SweepSamples | null;
}

export interface SweepKneePoint {
  step: number;
  value: number;
}

/**
 * What result.json keeps of a sweep (`result.sweep`), enough to resume it and to report its knee.
 */
export interface SweepRecord {
  driver: SweepDriver;
  mode: 'values' | 'search';
  points: SweepPoint[];
  /** Why the sweep ended; null while it runs. */
  stop_reason: string | null;
  /**
   * The kind of that reason (budget-spent and range-end make the rows lower bounds); null while it
   * runs.
   */
  stop_kind?: SweepStopKind | null;
  /** The time budget (sweep.budget or the campaign entry's), seconds; null: none. */
  budget_s?: number | null;
  knee: {
    last_stable: SweepKneePoint | null;
    first_broken: SweepKneePoint | null;
    /** Highest stable value below the first degraded or broken one. */
    safe: SweepKneePoint | null;
    first_unsafe: SweepKneePoint | null;
  } | null;
  /**
   * The search stopped because the path it loads did not recover after a step (the recovery
   * probe got nothing back within max_wait); absent or null otherwise.
   */
  not_recovered?: {
    after_step: number;
    after_value: number | null;
    /** "insert_rate 2,000/s": the driver and value of that step, as the stop reason words it. */
    after_text: string;
    path: ProbePathKind;
    wait_s: number;
    recovery: RecoveryRecord;
    /**
     * The server was still recovering before every run of a value (sweep.recovery.reruns spent),
     * not down: the rows are lower bounds naming that.
     */
    lower_bound?: boolean;
  } | null;
  /** ISO times this sweep was resumed at. */
  resumed_at: string[];
}

export type SweepResult = RunResult & { sweep?: SweepRecord };

/** The sweep's steps so far as the planner reads them (sweep/plan). */
export function historyOf(
  record: SweepRecord,
  steps: readonly StepResult[],
  maxScale = Infinity,
): SweepHistoryItem[] {
  const out: SweepHistoryItem[] = [];
  for (const s of steps) {
    const p = record.points.find((x) => x.step === s.index);
    if (!p) continue;
    const scale = p.scale ?? 1;
    out.push({
      value: p.value,
      verdict: s.verdict,
      phase: p.phase,
      step: s.index,
      recovering: p.recovery?.recovered === false,
      samples: p.samples?.count ?? null,
      settled: p.samples?.settled !== undefined,
      scale,
      at_cap: scale >= maxScale,
      refused: refusedOutright(s),
    });
  }
  return out;
}

/** The server's rejection, quoted, when it refused every connection of a step; else null. */
function refusedOutright(s: StepResult): string | null {
  if ((s.connections?.joined ?? 0) > 0 || s.verdict !== 'broken') return null;
  const said = serverRejectionOf(s);
  return said ? `“${said.reason}” ×${fmtInt(said.count)}` : null;
}

export function kneeRecord(history: readonly SweepHistoryItem[]): SweepRecord['knee'] {
  const k = sweepKnee(history);
  const pt = (p: { step: number; value: number } | null) =>
    p ? { step: p.step, value: p.value } : null;
  return {
    last_stable: pt(k.last_stable),
    first_broken: pt(k.first_broken),
    safe: pt(k.safe),
    first_unsafe: pt(k.first_unsafe),
  };
}

/** The sweep's knee from a result (null when the result is not a sweep's). */
export function sweepKneeOf(result: SweepResult): SweepRecord['knee'] {
  return result.sweep ? kneeRecord(historyOf(result.sweep, result.steps)) : null;
}

/**
 * The steps thresholds judge in a sweep: those at or below the knee's last stable value (a
 * sweep goes past the knee on purpose). Not a sweep, or no broken step: every step.
 */
export function stepsUpToKnee(result: SweepResult): StepResult[] {
  if (!result.sweep) return result.steps;
  const knee = sweepKneeOf(result);
  if (!knee?.first_broken) return result.steps;
  const limit = knee.last_stable?.value ?? -Infinity;
  return historyOf(result.sweep, result.steps)
    .filter((h) => h.value <= limit)
    .map((h) => result.steps.find((s) => s.index === h.step)!)
    .filter(Boolean);
}

/**
 * The recovery check before a step, in words, for the sweep's table: "confirmed: p50 52 ms ≤
 * 170 ms (baseline 50 ms), waited 1.2 s", "not confirmed after 3.1 s (…): inconclusive, run
 * again", "first step" or "not checked".
 */
export function recoveryWords(rec: RecoveryRecord | undefined, first: boolean): string {
  if (!rec) return first ? 'first step' : '—';
  const probe = rec.probes[rec.probes.length - 1];
  const waited = `waited ${(rec.wait_ms / 1000).toFixed(1)} s`;
  if (rec.recovered === null) return first ? 'first step (no baseline yet)' : 'not checked';
  if (rec.recovered === false) {
    const why = rec.note?.match(/\(([^()]*)\): measured while recovering/)?.[1];
    return `not confirmed after ${(rec.wait_ms / 1000).toFixed(1)} s${why ? ` (${why})` : ''}: inconclusive, run again`;
  }
  const p50 = probe?.p50_ms ?? null;
  if (rec.baseline === null || rec.tolerance_ms == null)
    return `confirmed at rest (nothing arriving, probe p50 ${p50 ?? '—'} ms: the baseline), ${waited}`;
  return `confirmed: probe p50 ${p50 ?? '—'} ms ≤ ${rec.tolerance_ms} ms (baseline ${rec.baseline.p50_ms ?? '—'} ms), ${waited}`;
}
