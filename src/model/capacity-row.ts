/**
 * What one row of the capacity table holds and the options that shape it: the safe lines, the
 * join headroom, the rule that produced the value (docs/CAPACITY.md).
 */
import type { FitOptions, FitResult } from './fit.js';
import type { Knee } from './knee.js';
import type { Limit } from './limit.js';
import type { LimitingFactor, StepLimitContext } from './step-limit.js';
import type { CapacityUnit } from './capacity-dimensions.js';

export interface SafeLines {
  /** Server CPU % of the instance's vCPUs. docs/METHOD.md §1.2: 70 %. */
  cpu_pct: number;
  /**
   * Server memory % of the instance's memory. docs/CAPACITY.md "One dimension in one run": 85 %.
   */
  mem_pct: number;
}

export const DEFAULT_SAFE_LINES: SafeLines = { cpu_pct: 70, mem_pct: 85 };

/**
 * Share of the predicted join ceiling used as the recommended join rate (docs/METHOD.md §4, §8).
 */
export const DEFAULT_JOIN_HEADROOM = 0.5;

/**
 * Which rule produced a row's value (docs/CAPACITY.md): the fitted resource line at its safe
 * line, the highest stable step below the first non-stable one, the join pool's ceiling times
 * the headroom, or — no limit reached — the highest stable step as a lower bound.
 */
export type CapacityRule =
  'safe-line fit' | 'knee' | 'pool headroom' | 'highest stable (lower bound)' | 'none';

export const CAPACITY_RULE_TEXT: Record<CapacityRule, string> = {
  'safe-line fit': 'where the fitted resource line crosses its safe line',
  knee: 'highest stable step below the first step that was not stable',
  'pool headroom': 'predicted auth-pool ceiling (db_pool ÷ check time) × join headroom',
  'highest stable (lower bound)':
    'no limit reached: the highest stable step measured is a lower bound',
  none: 'no stable step measured',
};

export interface CapacityOptions {
  safe_lines?: Partial<SafeLines>;
  /** The run's settings a step's limit is worded with (SLO, built-in server, rtcap's OS limits). */
  limit_context?: Omit<StepLimitContext, 'safe'>;
  join_headroom?: number;
  fit?: FitOptions;
}

/**
 * What a row of docs/METHOD.md §7 says, whether from one run (CapacityRow) or a campaign's runs
 * together (capacity/types CapacityTableRow).
 */
export interface CapacityValue {
  /** Row number in docs/METHOD.md §7. */
  no: number;
  id: string;
  dimension: string;
  unit: CapacityUnit;
  /** The recommended value, unrounded; null when there is none. */
  value: number | null;
  /**
   * Rounded down for reading: "≤ 21,200"; a limit never reached is a lower bound: "≥ 28,600/s, no
   * limit reached".
   */
  display: string;
  /**
   * upper: the value is a limit; lower: no limit was reached, the instance carries at least this.
   */
  bound: 'upper' | 'lower' | null;
}

export interface CapacityRow extends CapacityValue {
  rule: CapacityRule;
  limiting_factor: LimitingFactor;
  /** What stopped the row, whole (model/limit); limiting_factor is its short tag. */
  limit: Limit;
  /** One line: the step and the fit behind the value. */
  evidence: string;
  /** StepResult.index values the value rests on. */
  evidence_steps: number[];
  fit: FitResult | null;
  /** Driver value where the fit meets the safe line, if it does. */
  fit_crossing: number | null;
  knee: Knee;
  /** Other rows of this table whose driver rose with this one: the limit may be theirs. */
  covaries_with: string[];
}
