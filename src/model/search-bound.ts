/**
 * A search's own stop read into its run's capacity rows: a row that reached no limit is a
 * lower bound, and when the search stopped because its time budget was spent the row says so
 * ("≥ X, budget spent", limit kind budget-spent), not "no limit reached"; a search that ran to
 * sweep.max says the range ended there (range-end, with the top of the range). A search that
 * stopped because the path it loads did not recover after a step says that (no-recovery): the
 * row's limit when that step is what stopped the row, else beside the limit the steps below
 * showed; when the path was not down but still working off a backlog before every rerun
 * (sweep.recovery.reruns spent), the row is a lower bound naming that. Pure.
 */
import { formatCapacityValue } from './capacity-dimensions.js';
import type { CapacityRow } from './capacity-row.js';
import { isLowerBound, limitWords, RECOVERY_PATH_WORDS, type Limit } from './limit.js';
import { factorOfLimit } from './step-limit.js';

/** What a search's record (result.sweep) says of how it ended. */
export interface SearchStop {
  mode?: string;
  driver?: string;
  stop_kind?: string | null;
  stop_reason?: string | null;
  budget_s?: number | null;
  /** The search stopped because the path it loads did not recover (sweep/record). */
  not_recovered?: {
    after_step: number;
    after_text: string;
    path: string;
    wait_s: number;
    /** Still recovering before every run of a value, not down: the rows are lower bounds. */
    lower_bound?: boolean;
  } | null;
}

/**
 * A row of a search whose path did not recover after step `after_step`. The value stays what
 * the steps before it showed (the last stable step); the limit is the path's not recovering
 * when that step is the row's first unsafe one or nothing else limited the row, else the row
 * keeps the limit a lower step showed and says where the search stopped.
 */
export function notRecoveredRow(
  row: CapacityRow,
  stop: NonNullable<SearchStop['not_recovered']>,
): CapacityRow {
  const limit: Limit = {
    kind: 'no-recovery',
    path: RECOVERY_PATH_WORDS[stop.path] ?? stop.path,
    after: stop.after_text,
    wait_s: stop.wait_s,
  };
  const words = `${limitWords(limit)} (step ${stop.after_step}): the search stopped there`;
  if (row.value === null) return { ...row, evidence: `${row.evidence}; ${words}` };
  if (stop.lower_bound) return lowerBoundRow(row, limit, words);
  const fromKnee = row.rule === 'knee' || row.rule === 'highest stable (lower bound)';
  const unsafe = row.knee.first_unsafe?.step;
  if (!fromKnee || (unsafe !== undefined && unsafe !== stop.after_step && !isLowerBound(row.limit)))
    return { ...row, evidence: `${row.evidence}; ${words}` };
  return {
    ...row,
    bound: 'upper',
    rule: 'knee',
    limit,
    limiting_factor: factorOfLimit(limit),
    display: `≤ ${formatCapacityValue(row.value, row.unit, true)}`,
    evidence: `${row.evidence}; ${words}`,
    evidence_steps: [...new Set([...row.evidence_steps, stop.after_step])],
  };
}

/**
 * The server was still working off a backlog before every run of a value: the knee lies above
 * the last stable step, not narrowed, so the row is at least that, naming why it stopped.
 */
function lowerBoundRow(row: CapacityRow, limit: Limit, words: string): CapacityRow {
  return {
    ...row,
    bound: 'lower',
    rule: 'highest stable (lower bound)',
    limit,
    limiting_factor: factorOfLimit(limit),
    display: `≥ ${formatCapacityValue(row.value!, row.unit, true)}, ${limitWords(limit)}`,
    evidence: `${row.evidence}; ${words}`,
  };
}

/** Rows of a searched run that reached no limit, with the search's reason for stopping. */
export function applySearchStop(rows: CapacityRow[], sweep: SearchStop | undefined): CapacityRow[] {
  if (!sweep || sweep.mode !== 'search') return rows;
  const kind = sweep.stop_kind;
  const stopped = sweep.not_recovered;
  if (kind === 'not-recovered' && stopped) return rows.map((row) => notRecoveredRow(row, stopped));
  if (kind !== 'budget-spent' && kind !== 'range-end') return rows;
  return rows.map((row) => {
    if (row.bound !== 'lower' || row.limit.kind !== 'range-end' || row.value === null) return row;
    const v = formatCapacityValue(row.value, row.unit, true);
    if (kind === 'budget-spent') {
      const budget = sweep.budget_s ?? null;
      return {
        ...row,
        limit: { kind: 'budget-spent', budget_s: budget },
        limiting_factor: factorOfLimit({ kind: 'budget-spent', budget_s: budget }),
        display: `≥ ${v}, budget spent`,
        evidence: `${row.evidence}; the search spent its budget${budget !== null ? ` (${Math.round(budget)} s)` : ''} before it reached a limit`,
      };
    }
    return {
      ...row,
      display: `≥ ${v}, range end`,
      evidence: `${row.evidence}; the search reached the top of its range (sweep.max) with no limit`,
    };
  });
}
