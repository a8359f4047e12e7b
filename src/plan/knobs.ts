/**
 * The planner turns knobs (docs/CAPACITY.md "Rows a setting limits"): where a row of the table is
 * set by a server setting (capacity/setting-limits: the authorisation pool db_pool for joins, the
 * presence quota for members per topic), the workload is planned with today's setting and again
 * with docs/METHOD.md §8 recommendation applied, one setting at a time and all together, and the
 * change that saves the most instances is named. Pure: table and workload in, plans out.
 */
import type { CapacityFile, CapacityTableRow, SettingLimit } from '../capacity/types.js';
import { formatCapacityValue } from '../model/capacity-dimensions.js';
import { demandsOf } from './demands.js';
import type { Workload } from './workload.js';
import { planInstances, type InstancePlan } from './instances.js';

export interface KnobPlan {
  setting: string;
  row: string;
  today: number;
  /** The setting with the docs/METHOD.md §8 rule applied; null when the table cannot size it. */
  recommended: number | null;
  /** How the recommendation was sized, or why there is none. */
  why: string;
  /** The row as it reads today and with the recommendation. */
  before: string;
  after: string | null;
  /** The workload planned with only this change; null when there is no recommendation. */
  plan: InstancePlan | null;
}

export interface KnobAdvice {
  today: InstancePlan;
  knobs: KnobPlan[];
  /** Every recommendation applied at once; null when no knob has one. */
  all: InstancePlan | null;
  /**
   * The change that saves the most instances (or makes the workload possible); null: none helps.
   */
  best: KnobPlan | null;
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

/**
 * The docs/METHOD.md §8 value for a setting: db_pool sized for the workload's joins per tenant,
 * quotas from the table.
 */
function recommend(
  lim: SettingLimit,
  row: CapacityTableRow,
  capacity: CapacityFile,
  workload: Workload,
): { value: number | null; why: string } {
  if (lim.key === 'db_pool') {
    const demand = demandsOf(workload).find((d) => d.id === row.id);
    if (!demand) return { value: null, why: 'the workload asks no joins' };
    const share = demand.value / workload.tenants;
    const pool = Math.max(lim.today, Math.ceil(share / lim.per_unit - 1e-9));
    return {
      value: pool,
      why: `docs/METHOD.md §8: db_pool = join rate ÷ headroom × check time, for this workload's ${fmt(share)} joins/s per tenant: ⌈${fmt(share)} ÷ ${fmt(lim.per_unit)} per connection⌉`,
    };
  }
  const cfg = capacity.config.find((c) => c.key === lim.key);
  if (!cfg || cfg.value === null || cfg.bound === 'lower') {
    return {
      value: null,
      why: `no docs/METHOD.md §8 value for ${lim.setting}: ${cfg?.missing ?? (cfg?.bound === 'lower' ? 'its row reached no limit, measure higher' : 'not in the table')}`,
    };
  }
  return { value: cfg.value, why: `docs/METHOD.md §8: ${cfg.display} (${cfg.reason})` };
}

/** The table with one setting changed: the row's value follows it, the rest stays. */
export function withSetting(capacity: CapacityFile, rowId: string, value: number): CapacityFile {
  const rows = capacity.rows.map((r) => {
    if (r.id !== rowId || !r.setting_limit) return r;
    const v = value * r.setting_limit.per_unit;
    const display = `≤ ${formatCapacityValue(v, r.unit, true)}`;
    return { ...r, value: v, display, setting_limit: { ...r.setting_limit, today: value } };
  });
  return { ...capacity, rows, values: Object.fromEntries(rows.map((r) => [r.id, r.value])) };
}

function rowText(r: CapacityTableRow | undefined): string {
  if (!r?.setting_limit) return '—';
  const w = r.setting_limit.without
    ? `; measured beside it ${r.setting_limit.without.display} (${r.setting_limit.without.limiting_factor})`
    : '';
  return `${r.display} at ${r.setting_limit.setting} ${fmt(r.setting_limit.today)}${w}`;
}

/** Instances a plan needs, for ranking: Infinity when no count carries it. */
const cost = (p: InstancePlan | null) =>
  p === null || p.instances === null ? Infinity : p.instances;

export function planKnobs(capacity: CapacityFile, workload: Workload): KnobAdvice {
  const today = planInstances(capacity, workload);
  const touched = new Set(demandsOf(workload).map((d) => d.id));
  const knobs: KnobPlan[] = [];
  let all = capacity;
  for (const row of capacity.rows) {
    const lim = row.setting_limit;
    if (!lim || !touched.has(row.id)) continue;
    const rec = recommend(lim, row, capacity, workload);
    const changed = rec.value === null ? null : withSetting(capacity, row.id, rec.value);
    if (changed && rec.value !== null) all = withSetting(all, row.id, rec.value);
    knobs.push({
      setting: lim.setting,
      row: row.id,
      today: lim.today,
      recommended: rec.value,
      why: rec.why,
      before: rowText(row),
      after: changed ? rowText(changed.rows.find((r) => r.id === row.id)) : null,
      plan: changed ? planInstances(changed, workload) : null,
    });
  }
  const useful = knobs.filter((k) => k.plan !== null && cost(k.plan) < cost(today));
  const best = useful.reduce<KnobPlan | null>(
    (a, b) => (a === null || cost(b.plan) < cost(a.plan) ? b : a),
    null,
  );
  const anyRec = knobs.some((k) => k.recommended !== null);
  return { today, knobs, all: anyRec ? planInstances(all, workload) : null, best };
}
