/** A search step's marks in result.json (sweep/steps writes them, model/knee reads them). */

/**
 * A search step's marks: whether the server was back to its baseline when the step started
 * (the recovery probe), and whether a longer run of the same value replaced it (min_samples).
 * A step measured while `recovered` is false (inconclusive), or one `superseded_by` another, is
 * never the knee nor a capacity row's evidence (model/knee).
 */
export type RecoveryFigure = 'baseline_p50_ms' | 'probe_p50_ms' | 'tolerance_ms' | 'still_arriving';
export interface StepSearchMark {
  /** true: back to the baseline; false: the probe's wait ran out first; null: not checked. */
  recovered: boolean | null;
  /** Time spent probing and waiting before the step. */
  recovery_wait_ms: number | null;
  /**
   * The recovery check before the step (recovery/probe; still_arriving: deliveries of an
   * earlier step the members received in the second before the probe); absent: none ran.
   */
  recovery?: Record<RecoveryFigure, number | null> & { waited_ms: number };
  /** Measured before the server was back to its baseline: not the knee, run again. */
  inconclusive?: boolean;
  /** The step that ran this value again, longer, because this one had too few samples. */
  superseded_by?: number;
  /** What the search did about this step, one line each. */
  notes: string[];
}
