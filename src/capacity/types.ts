/**
 * capacity.json (`rtcap.capacity/v1`): the whole docs/METHOD.md §7 table (12 rows) and §8 table
 * (4 rows) assembled from several runs — a campaign's, or runs made separately
 * (`rtcap capacity DIR...`). Every row has a value with its rule and evidence, or the reason
 * it has none. Row ids are stable keys: `values.public_connections` is what thresholds and
 * `rtcap plan` read.
 */
import type { CapacityRule, CapacityValue, SafeLines } from '../model/capacity-row.js';
import type { AdviceKey, AdviceValue } from '../model/advice.js';
import type { Limit } from '../model/limit.js';

export const CAPACITY_FILE_SCHEMA = 'rtcap.capacity/v1';

/**
 * A run the table was built from. `dir` as given to rtcap (relative to the capacity file when
 * written by it).
 */
export interface SourceRef {
  dir: string;
  run_id: string;
  profile: string;
  scenario: string;
  status: string;
  sweep: boolean;
  steps: number;
}

export interface RowEvidence {
  run_id: string;
  dir: string;
  /** StepResult.index values (from 1 in reports) the value rests on. */
  steps: number[];
  /**
   * The fit behind the value, as printed ("Memory ≈ 35.0% + 4.00 pp × connections ÷ 1000 ..."), if
   * any.
   */
  fit: string | null;
  /** The run's report page, at its charts. */
  chart: string;
  /** One line: which step and fit, as the per-run table says it. */
  text: string;
}

export type CampaignRule = CapacityRule | 'presence quota' | 'runs disagree';

/**
 * A row whose value a server setting sets (capacity/setting-limits): value = today × per_unit,
 * and `without` is the bound the runs measured beside it (the knee), which raising the setting
 * cannot lift.
 */
export interface SettingLimit {
  key: AdviceKey;
  /** The setting's name as the server knows it. */
  setting: string;
  /** Its value in the runs (or the quota assumed by the table's arithmetic). */
  today: number;
  /** The row's value per unit of the setting. */
  per_unit: number;
  /** The bound is one tenant's (its database pool, its quota): more instances do not raise it. */
  per_tenant: boolean;
  /** Why the row follows the setting, in words. */
  basis: string;
  without: {
    value: number;
    display: string;
    bound: 'upper' | 'lower';
    limiting_factor: string;
  } | null;
}

export interface CapacityTableRow extends CapacityValue {
  /** Short tag of the limit (model/capacity LimitingFactor, or 'presence quota'). */
  limiting_factor: string | null;
  /**
   * What stopped the row, whole; worded by model/limit. Null without a value; absent in older
   * files.
   */
  limit?: Limit | null;
  rule: CampaignRule;
  rule_text: string;
  evidence: RowEvidence | null;
  /** Why there is no value; null when there is one. */
  reason: string | null;
  /**
   * Further figures the row rests on: the other bound (presence), the joint bound (private), other
   * runs.
   */
  notes: string[];
  /** Present when a server setting, not the instance, sets the value. */
  setting_limit?: SettingLimit;
}

export interface ConfigTableRow extends AdviceValue {
  evidence: { run_id: string; dir: string; steps: number[] } | null;
  /** Why the row has no recommendation; null when it has one. */
  missing: string | null;
}

export interface CapacityFile {
  schema: typeof CAPACITY_FILE_SCHEMA;
  created_at: string;
  /** What the runs measured: one target, one instance size, one rtcap major version. */
  target: {
    url: string;
    builtin: boolean;
    instance: { vcpus: number; memory_mb: number };
    cpus: string | null;
  };
  rtcap_version: string;
  safe_lines: SafeLines;
  sources: SourceRef[];
  /** Stable keys: row id → value (null when the row has none). */
  values: Record<string, number | null>;
  rows: CapacityTableRow[];
  config: ConfigTableRow[];
}
