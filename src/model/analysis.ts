/**
 * Everything the model derives from a run, in one call: fits, knees, the docs/METHOD.md §7 capacity
 * table and the §8 advice. The CLI may store it in RunResult.analysis; renderers recompute it from
 * the steps, so a report rebuilt from result.json never trusts a stale analysis.
 */
import type { RunResult, Verdict } from '../result/result.js';
import { adviseConfig, type AdviceOptions, type AdviceRow } from './advice.js';
import { CAPACITY_DIMENSIONS } from './capacity-dimensions.js';
import {
  DEFAULT_JOIN_HEADROOM,
  DEFAULT_SAFE_LINES,
  type CapacityRow,
  type SafeLines,
} from './capacity-row.js';
import { capacityTable } from './capacity.js';
import { fitRun, type FitResult } from './fit.js';
import { findKnee, type Knee } from './knee.js';
import { applySearchStop, type SearchStop } from './search-bound.js';
import { searchedDimension, searchedRow } from './searched-row.js';
import { num } from './metrics.js';

export interface AnalysisOptions extends AdviceOptions {
  safe_lines?: Partial<SafeLines>;
  /** Verdicts whose steps enter fits (default: stable; see fit.ts). */
  fit_verdicts?: readonly Verdict[];
}

export interface Analysis {
  safe_lines: SafeLines;
  join_headroom: number;
  fits: FitResult[];
  /** Knee along each capacity dimension's driver that the scenario has. */
  knees: Record<string, Knee>;
  capacity: CapacityRow[];
  advice: AdviceRow[];
}

export function analyzeRun(run: RunResult, opts: AnalysisOptions = {}): Analysis {
  const safe: SafeLines = { ...DEFAULT_SAFE_LINES, ...opts.safe_lines };
  const fitOpts = opts.fit_verdicts ? { verdicts: opts.fit_verdicts } : {};
  const joinHeadroom = opts.join_headroom ?? DEFAULT_JOIN_HEADROOM;
  const searched = (run as { sweep?: SearchStop }).sweep;
  const capOpts = { safe_lines: safe, fit: fitOpts, join_headroom: joinHeadroom };
  // A search speaks for its own row only; any other run for every row its steps varied.
  const own = searchedDimension({ profile: run.profile, sweep: searched });
  const capacity = applySearchStop(
    own ? [searchedRow(run, own, capOpts)] : capacityTable(run, capOpts),
    searched,
  );
  const knees: Record<string, Knee> = {};
  for (const d of CAPACITY_DIMENSIONS) {
    if (d.scenarios.includes(run.profile.scenario)) knees[d.id] = findKnee(run.steps, d.driver);
  }
  return {
    safe_lines: safe,
    join_headroom: joinHeadroom,
    fits: fitRun(run.steps, run.profile.scenario, fitOpts),
    knees,
    capacity,
    advice: adviseConfig(run.steps, capacity, { ...opts, join_headroom: joinHeadroom }),
  };
}

/**
 * Analysis settings from the resolved profile's optional `analysis` section:
 * `{ cpu_safe_pct, mem_safe_pct, wanted_join_rate_per_s, join_headroom }`. Unknown or
 * mistyped values are ignored here; validating them is the profile schema's job.
 */
export function analysisOptionsFromProfile(resolved: unknown): AnalysisOptions {
  const a = (resolved as { analysis?: Record<string, unknown> } | null | undefined)?.analysis;
  if (!a || typeof a !== 'object') return {};
  const out: AnalysisOptions = {};
  const safe: Partial<SafeLines> = {};
  const cpu = num(a.cpu_safe_pct);
  const mem = num(a.mem_safe_pct);
  if (cpu !== null) safe.cpu_pct = cpu;
  if (mem !== null) safe.mem_pct = mem;
  if (cpu !== null || mem !== null) out.safe_lines = safe;
  const wanted = num(a.wanted_join_rate_per_s);
  if (wanted !== null) out.wanted_join_rate_per_s = wanted;
  const headroom = num(a.join_headroom);
  if (headroom !== null) out.join_headroom = headroom;
  return out;
}
