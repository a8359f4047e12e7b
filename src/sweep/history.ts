/**
 * What a search's planner (sweep/plan) reads of each step it ran: the value, the verdict, how the
 * value was chosen, and the marks that keep a step from standing as evidence.
 */
import type { Verdict } from '../result/result.js';
import type { SweepPhase } from './spec.js';

export interface SweepHistoryItem {
  value: number;
  verdict: Verdict;
  phase: SweepPhase;
  step: number;
  /**
   * The step ran after the recovery probe's wait ran out, the server not back to its baseline:
   * inconclusive, whatever its verdict.
   */
  recovering?: boolean;
  /** Samples of the percentile the step is judged on (null: none judged, e.g. acks only). */
  samples?: number | null;
  /** The step's length (duration, or joins for join rate) as a multiple of load.steps.0's. */
  scale?: number;
  /** The step could not be lengthened further (its scale is at the sweep's cap). */
  at_cap?: boolean;
  /** Short of min_samples, but the missing samples could not change its verdict (sweep/settled). */
  settled?: boolean;
  /** The server refused every connection of the step: its rejection, quoted ("“…” ×51"). */
  refused?: string | null;
}
