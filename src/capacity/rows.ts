/**
 * The docs/METHOD.md §7 rows of a capacity table from several runs. Each dimension takes the runs
 * of its scenario; each run gives its own row by the per-run rules (model/capacity.ts); the table
 * keeps the lowest value, since a recommendation must hold for every run that measured it, and
 * never one at or above a step another run found not stable. Rows with no value say why.
 */
import { analysisOptionsFromProfile, analyzeRun } from '../model/analysis.js';
import {
  CAPACITY_DIMENSIONS,
  formatCapacityValue,
  type CapacityDimension,
} from '../model/capacity-dimensions.js';
import {
  CAPACITY_RULE_TEXT,
  DEFAULT_SAFE_LINES,
  type CapacityRow,
  type SafeLines,
} from '../model/capacity-row.js';
import { isLinear } from '../model/fit.js';
import { DASH } from '../model/format.js';
import { limitWords } from '../model/limit.js';
import { searchedDimension, type SearchedRun } from '../model/searched-row.js';
import type { Source } from './like-for-like.js';
import type { CapacityTableRow, RowEvidence } from './types.js';

export interface RowOptions {
  safe_lines?: Partial<SafeLines>;
}

/** A source's per-run row for one dimension, or why it has none. */
export interface PerRun {
  source: Source;
  row: CapacityRow | null;
  why: string | null;
}

export function chartLink(dir: string): string {
  return `${dir.replace(/\/+$/, '')}/report.html#charts`;
}

export function evidenceOf(source: Source, row: CapacityRow): RowEvidence {
  const fit = row.rule === 'safe-line fit' && row.fit?.fit ? row.fit.text : null;
  return {
    run_id: source.result.run_id,
    dir: source.dir,
    steps: row.evidence_steps,
    fit,
    chart: chartLink(source.dir),
    text: row.evidence,
  };
}

/** Each source's rows, computed once: the per-run capacity table with the table's safe lines. */
export function perRunRows(
  sources: readonly Source[],
  opts: RowOptions = {},
): Map<Source, CapacityRow[]> {
  const out = new Map<Source, CapacityRow[]>();
  for (const s of sources) {
    const fromProfile = analysisOptionsFromProfile(s.result.profile.resolved);
    const safe = { ...DEFAULT_SAFE_LINES, ...fromProfile.safe_lines, ...opts.safe_lines };
    out.set(s, analyzeRun(s.result, { ...fromProfile, safe_lines: safe }).capacity);
  }
  return out;
}

export function candidatesFor(
  dim: CapacityDimension,
  sources: readonly Source[],
  rows: Map<Source, CapacityRow[]>,
): PerRun[] {
  return sources
    .filter((s) => dim.scenarios.includes(s.result.profile.scenario))
    .filter((s) => {
      // A search speaks for its own row only (model/searched-row).
      const own = searchedDimension(s.result as SearchedRun);
      return own === null || own.id === dim.id;
    })
    .map((s) => {
      const row = rows.get(s)?.find((r) => r.id === dim.id) ?? null;
      const why = row
        ? null
        : `${s.result.run_id}: ${dim.driver} took fewer than two values on steps that count (one load level shows no limit)`;
      return { source: s, row, why };
    });
}

function noValue(dim: CapacityDimension, reason: string, notes: string[] = []): CapacityTableRow {
  return {
    no: dim.no,
    id: dim.id,
    dimension: dim.label,
    unit: dim.unit,
    value: null,
    display: DASH,
    bound: null,
    limiting_factor: null,
    limit: null,
    rule: 'none',
    rule_text: CAPACITY_RULE_TEXT.none,
    evidence: null,
    reason,
    notes,
  };
}

/**
 * A row no step measured, with what stopped the measurement (a search whose first value was
 * already generator-bound): no value, a lower bound, its limit and evidence.
 */
function lowerBoundWithoutValue(dim: CapacityDimension, c: PerRun): CapacityTableRow {
  const r = c.row!;
  return {
    ...noValue(dim, `${c.source.result.run_id}: ${r.evidence}`),
    display: r.display,
    bound: 'lower',
    limiting_factor: r.limiting_factor,
    limit: r.limit,
    evidence: evidenceOf(c.source, r),
  };
}

/**
 * The lowest driver value at which any candidate run found a step that was not stable (its
 * knee's first unsafe step), with that run: a recommendation stays below it.
 */
function lowestUnsafe(cands: readonly PerRun[]): { value: number; run: PerRun } | null {
  let best: { value: number; run: PerRun } | null = null;
  for (const c of cands) {
    const v = c.row?.knee.first_unsafe?.value;
    if (v !== undefined && (best === null || v < best.value)) best = { value: v, run: c };
  }
  return best;
}

/** A candidate whose own row has a value. */
type Valued = PerRun & { row: CapacityRow & { value: number } };

/** Why each run other than the chosen one did not give the row: higher, or not measured alone. */
function notChosenNotes(withValue: readonly Valued[], pool: readonly Valued[], chosen: Valued) {
  return withValue
    .filter((c) => c !== chosen)
    .map((c) =>
      pool.includes(c)
        ? `${c.source.result.run_id} gave ${c.row.display} (${limitWords(c.row.limit, { remedy: false })}); the lower is kept`
        : `${c.source.result.run_id} gave ${c.row.display} (${limitWords(c.row.limit, { remedy: false })}) with ${c.row.covaries_with.join(', ')} rising too: not used, the dimension was measured on its own`,
    );
}

/** Another run failed below what the chosen one carried: no value is safe to print. */
function runsDisagree(
  dim: CapacityDimension,
  chosen: Valued,
  unsafe: { value: number; run: PerRun },
  notes: string[],
): CapacityTableRow {
  const safeDriver = chosen.row.knee.safe!.value;
  const firstUnsafe = unsafe.run.row!.knee.first_unsafe!;
  return {
    ...noValue(
      dim,
      `runs disagree: ${chosen.source.result.run_id} was stable at ${formatCapacityValue(safeDriver, dim.unit)} but ${unsafe.run.source.result.run_id} step ${firstUnsafe.step} was ${firstUnsafe.verdict} at ${formatCapacityValue(unsafe.value, dim.unit)}: measure again`,
      notes,
    ),
    rule: 'runs disagree',
    rule_text: 'a recommendation is never above a measured step that was not stable',
  };
}

/** The table's row from the chosen run's own, with what a reader should know of its fit. */
function measuredRow(dim: CapacityDimension, chosen: Valued, notes: string[]): CapacityTableRow {
  const r = chosen.row;
  // A fit that is no model (R² below 0.5, or refused for its sign) is said so, as per run.
  if (r.fit?.fit && !isLinear(r.fit.fit)) notes.push(`fit: ${r.fit.text}`);
  if (r.covaries_with.length > 0)
    notes.push(
      `its driver rose together with ${r.covaries_with.join(', ')} in ${chosen.source.result.run_id}: the limit may belong to ${r.covaries_with.length === 1 ? 'that row' : 'those rows'}`,
    );
  return {
    no: dim.no,
    id: dim.id,
    dimension: dim.label,
    unit: dim.unit,
    value: r.value,
    display: r.display,
    bound: r.bound,
    limiting_factor: r.limiting_factor,
    limit: r.limit,
    rule: r.rule,
    rule_text: CAPACITY_RULE_TEXT[r.rule],
    evidence: evidenceOf(chosen.source, r),
    reason: null,
    notes,
  };
}

export function assembleRow(dim: CapacityDimension, cands: readonly PerRun[]): CapacityTableRow {
  if (cands.length === 0) {
    return noValue(
      dim,
      `no ${dim.scenarios.join(' or ')} run among the sources (profiles/${dim.scenarios[0]}-quick.yaml measures it)`,
    );
  }
  const withValue = cands.filter((c): c is Valued => c.row?.value != null);
  if (withValue.length === 0) {
    const whys = cands.map(
      (c) => c.why ?? `${c.source.result.run_id}: ${c.row?.evidence ?? 'no row'}`,
    );
    const bounded = cands.find((c) => c.row?.bound === 'lower');
    return bounded ? lowerBoundWithoutValue(dim, bounded) : noValue(dim, whys.join('; '));
  }
  // A dimension measured on its own speaks for it; one that rose together with another row's
  // driver (a connection sweep also raises deliveries/s) may be showing the other's limit
  // (docs/METHOD.md §1.2: CPU follows deliveries, not the number of connections), so it is used
  // only when nothing else is.
  const alone = withValue.filter((c) => c.row.covaries_with.length === 0);
  const pool = alone.length > 0 ? alone : withValue;
  const chosen = pool.reduce((a, b) => (b.row.value < a.row.value ? b : a));
  const notes = notChosenNotes(withValue, pool, chosen);
  // Runs left out above (their failures may be the other driver's) do not cap the row.
  const unsafe = lowestUnsafe([
    ...pool,
    ...cands.filter((c) => c.row === null || c.row.value === null),
  ]);
  const safeDriver = chosen.row.knee.safe?.value ?? null;
  if (unsafe && safeDriver !== null && chosen.row.value >= unsafe.value && unsafe.run !== chosen)
    return runsDisagree(dim, chosen, unsafe, notes);
  return measuredRow(dim, chosen, notes);
}

/** All 12 rows, in docs/METHOD.md §7 order, before the presence and two-driver rules (table.ts). */
export function assembleRows(
  sources: readonly Source[],
  rows: Map<Source, CapacityRow[]>,
): CapacityTableRow[] {
  return CAPACITY_DIMENSIONS.map((d) => {
    const cands = candidatesFor(d, sources, rows);
    const searchedOthers = sources.filter((s) => d.scenarios.includes(s.result.profile.scenario));
    if (cands.length > 0 || searchedOthers.length === 0) return assembleRow(d, cands);
    const what = searchedOthers.map(
      (s) => `${s.result.run_id} searched ${searchedDimension(s.result as SearchedRun)!.label}`,
    );
    return noValue(d, `no run searched this row (${what.join('; ')})`);
  });
}
