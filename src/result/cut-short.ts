/** A step that ended early, as result.json says it (StepResult.cut_short): part of the format. */

/** The phases a step can be cut short in (a timeseries.ndjson line's phase). */
export type CutShortPhase = 'ramp' | 'warmup' | 'steady' | 'drain';

/** What cut a step short, where, and whether its generator processes still answered. */
export interface StepCutShort {
  /**
   * What cut it short, one line: the signal ("SIGINT", "SIGTERM") or the run's abort reason
   * ("the server went away: …", "ramp did not finish within 610 s", …).
   */
  by: string;
  /** The phase the step was in. */
  phase: CutShortPhase;
  /**
   * False when the generator processes did not answer the collect in time: the step's
   * connections and errors are then those of their per-second lines, and nothing else of it was
   * measured.
   */
  collected: boolean;
  /** How long the coordinator waited for the collect (ms). */
  collect_wait_ms: number;
  /**
   * Generator processes (numbered from 1, with their pids) that did not answer the collect in
   * time while others did: the step counts only what those others reported. Absent: every
   * process answered, or none did (`collected` false).
   */
  unanswered?: Array<{ process: number; pid: number }>;
}

/**
 * How a step a search ended on purpose begins its StepCutShort.by: its verdict could no longer
 * be stable (docs/SWEEPS.md "Steps stopped early"); the rest of the run goes on.
 */
export const STOPPED_EARLY = 'stopped early';

/**
 * How the abort of a run whose ramp no connection could join begins (StepCutShort.by): the
 * connections it opened were answered, never joined, and count as failed.
 */
export const NO_CONNECTION_COULD_JOIN = 'no connection could join';

/**
 * "generator process 2 (pid 4321) did not answer the collect within 5 s: nothing it measured
 * is counted, the step's figures are the other processes' only" — the step's reason and the log
 * line, for processes that did not answer while others did.
 */
export function unansweredWords(
  unanswered: NonNullable<StepCutShort['unanswered']>,
  waitS: number,
): string {
  const one = unanswered.length === 1;
  const which = unanswered.map((p) => p.process).join(', ');
  const pids = unanswered.map((p) => p.pid).join(', ');
  return (
    `generator process${one ? '' : 'es'} ${which} (pid${one ? '' : 's'} ${pids}) ` +
    `did not answer the collect within ${waitS} s: nothing ${one ? 'it' : 'they'} measured is counted, ` +
    `the step's figures are the other processes' only`
  );
}
