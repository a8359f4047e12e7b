/**
 * A search's own stop read into its run's capacity rows: a row that reached no limit is a
 * lower bound, and when the search stopped because its time budget was spent the row says so
 * ("≥ X, budget spent", limit kind budget-spent), not "no limit reached"; a search that ran to
 * sweep.max says the range ended there (range-end, with the top of the range). Pure.
 */
import { formatCapacityValue, type CapacityRow } from './capacity.js';
import { factorOfLimit } from './step-limit.js';

/** What a search's record (result.sweep) says of how it ended. */
export interface SearchStop {
  mode?: string;
  driver?: string;
  stop_kind?: string | null;
  stop_reason?: string | null;
  budget_s?: number | null;
}

/** Rows of a searched run that reached no limit, with the search's reason for stopping. */
export function applySearchStop(rows: CapacityRow[], sweep: SearchStop | undefined): CapacityRow[] {
  if (!sweep || sweep.mode !== 'search') return rows;
  const kind = sweep.stop_kind;
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
