/**
 * The whole capacity table from several runs: the 12 rows of docs/METHOD.md §7 with the
 * presence quota rule and the private-broadcast joint bound, and the 4 rows of docs/METHOD.md
 * §8. Pure: runs in, capacity.json out. docs/CAPACITY.md states every rule used here.
 */
import { rowLimitWords } from '../model/limit.js';
import { adviseConfig, type AdviceKey, type AdviceRow } from '../model/advice.js';
import { analysisOptionsFromProfile, analyzeRun } from '../model/analysis.js';
import { DEFAULT_SAFE_LINES, type CapacityRow, type SafeLines } from '../model/capacity-row.js';
import { DASH, fmtInt } from '../model/format.js';
import { STEP_METRICS, num } from '../model/metrics.js';
import type { PresenceExtra } from '../result/extra.js';
import type { Source } from './like-for-like.js';
import {
  DEFAULT_PRESENCE_QUOTA_PER_S,
  DEFAULT_TOPIC_UPDATES_PER_S,
  membersByQuota,
} from './presence.js';
import { assembleRows, perRunRows } from './rows.js';
import { joinSettingLimit, presenceSettingLimit } from './setting-limits.js';
import {
  describeJointBound,
  judgeJointFit,
  predictTwo,
  type TwoDriverPoint,
} from './two-driver.js';
import {
  CAPACITY_FILE_SCHEMA,
  type CapacityFile,
  type CapacityTableRow,
  type ConfigTableRow,
} from './types.js';

export interface TableOptions {
  safe_lines?: Partial<SafeLines>;
  /**
   * The presence quota of docs/METHOD.md §5's arithmetic; default: the presence run's tenant quota,
   * else 1,000/s.
   */
  presence_quota_per_s?: number;
  /**
   * Updates per second one topic must be allowed (docs/METHOD.md §5: 5/s at 1,000/s gives 200
   * members).
   */
  topic_updates_per_s?: number;
  now?: Date;
}

function presenceQuotaOf(sources: readonly Source[]): number | null {
  for (const s of sources) {
    if (s.result.profile.scenario !== 'presence') continue;
    for (const st of s.result.steps) {
      const q = num((st.extra as Partial<PresenceExtra> | undefined)?.presence_quota_per_s);
      if (q !== null) return q;
    }
  }
  return null;
}

/**
 * Row 11: the measured knee and the docs/METHOD.md §5 quota arithmetic, the lower kept, both shown.
 */
export function applyPresenceQuota(
  row: CapacityTableRow,
  quotaPerS: number,
  topicUpdatesPerS: number,
): CapacityTableRow {
  const a = membersByQuota(quotaPerS, topicUpdatesPerS);
  const knee =
    row.value !== null
      ? `measured knee: ${row.display} (${rowLimitWords(row, { remedy: false })}; ${row.evidence?.text ?? ''})`
      : `measured knee: none (${row.reason})`;
  if (row.value !== null && row.value <= a.members) {
    return { ...row, notes: [...row.notes, `${a.text}; the measured knee is lower and is kept`] };
  }
  return {
    ...row,
    value: a.members,
    display: `≤ ${fmtInt(a.members)}`,
    bound: 'upper',
    limiting_factor: 'presence quota',
    limit: { kind: 'presence-quota', quota_per_s: quotaPerS },
    rule: 'presence quota',
    rule_text:
      'the lower of the measured knee and quota ÷ required topic update rate (docs/METHOD.md §5)',
    reason: null,
    notes: [a.text, knee, ...row.notes],
  };
}

/** Stable, complete, measured private-broadcast steps: CPU against sends/s and deliveries/s. */
export function privatePoints(sources: readonly Source[]): TwoDriverPoint[] {
  const pts: TwoDriverPoint[] = [];
  for (const s of sources) {
    if (s.result.profile.scenario !== 'broadcast-private') continue;
    for (const st of s.result.steps) {
      if (st.verdict !== 'stable' || st.complete === false) continue;
      const y = STEP_METRICS.cpu_pct(st);
      const x1 = STEP_METRICS.sent_per_s(st);
      const x2 = STEP_METRICS.delivered_per_s(st);
      if (y !== null && x1 !== null && x2 !== null) pts.push({ x1, x2, y, step: st.index });
    }
  }
  return pts;
}

/** Rows 4 and 5: the joint bound of a CPU fit on both drivers, or why there is none. */
export function applyJointBound(
  rows: CapacityTableRow[],
  sources: readonly Source[],
  cpuSafePct: number,
): void {
  const sends = rows.find((r) => r.id === 'private_sends');
  const deliveries = rows.find((r) => r.id === 'private_deliveries');
  if (!sends || !deliveries) return;
  if (!sources.some((s) => s.result.profile.scenario === 'broadcast-private')) return;
  const pts = privatePoints(sources);
  const { fit, refused } = judgeJointFit(pts, ['sends/s', 'deliveries/s']);
  let note: string;
  if (!fit) {
    note = refused!;
  } else {
    note = describeJointBound(fit, cpuSafePct, ['sends/s', 'deliveries/s']);
    if (sends.value !== null && deliveries.value !== null) {
      const both = predictTwo(fit, sends.value, deliveries.value);
      note +=
        both > cpuSafePct
          ? `; both rows at once (${fmtInt(sends.value)} sends/s with ${fmtInt(deliveries.value)} deliveries/s) give CPU ≈ ${both.toFixed(1)}%: above the safe line, keep within the joint bound`
          : `; both rows at once give CPU ≈ ${both.toFixed(1)}%: within the safe line`;
    }
  }
  sends.notes.push(note);
  deliveries.notes.push(note);
}

const CONFIG_KEYS: { key: AdviceKey; setting: string; needs: string }[] = [
  {
    key: 'db_pool',
    setting: 'Database connection pool size (db_pool)',
    needs: 'a join-rate run (the pool ceiling is db_pool ÷ auth check time, seed §4)',
  },
  {
    key: 'subs_pool_size',
    setting: 'Postgres Changes connection pool size (subs_pool_size)',
    needs: 'a postgres-changes run (seed §6)',
  },
  {
    key: 'max_events_per_second',
    setting: 'Max events per second (max_events_per_second)',
    needs: 'a public or private deliveries/s row with a value not limited by memory',
  },
  {
    key: 'max_presence_events_per_second',
    setting: 'Max presence events per second (max_presence_events_per_second)',
    needs: 'a presence deliveries/s row with a value',
  },
];

/**
 * The docs/METHOD.md §8 rows: pool advice from the runs that measured the pools, quotas from the
 * table's rows.
 */
export function assembleConfig(
  sources: readonly Source[],
  chosen: Map<string, { source: Source; row: CapacityRow }>,
): ConfigTableRow[] {
  const found = new Map<AdviceKey, { row: AdviceRow; source: Source }>();
  for (const s of sources) {
    const a = analyzeRun(s.result, analysisOptionsFromProfile(s.result.profile.resolved));
    for (const adv of a.advice) {
      if ((adv.key === 'db_pool' || adv.key === 'subs_pool_size') && !found.has(adv.key))
        found.set(adv.key, { row: adv, source: s });
    }
  }
  // Quotas follow the table's chosen rows, whichever run they came from.
  const rows = [...chosen.values()];
  const presenceRun = chosen.get('presence_deliveries')?.source;
  for (const adv of adviseConfig(
    presenceRun?.result.steps ?? [],
    rows.map((c) => c.row),
  )) {
    if (adv.key !== 'max_events_per_second' && adv.key !== 'max_presence_events_per_second')
      continue;
    const from =
      adv.key === 'max_presence_events_per_second'
        ? chosen.get('presence_deliveries')
        : (chosen.get('public_deliveries') ?? chosen.get('private_deliveries'));
    if (from) found.set(adv.key, { row: adv, source: from.source });
  }
  return CONFIG_KEYS.map(({ key, setting, needs }) => {
    const f = found.get(key);
    if (!f)
      return {
        key,
        setting,
        value: null,
        display: DASH,
        reason: DASH,
        benefit: DASH,
        evidence: null,
        missing: `no recommendation: needs ${needs}`,
      };
    return {
      key,
      setting: f.row.setting,
      value: f.row.value,
      display: f.row.display,
      reason: f.row.reason,
      benefit: f.row.benefit,
      ...(f.row.bound ? { bound: f.row.bound } : {}),
      evidence: { run_id: f.source.result.run_id, dir: f.source.dir, steps: f.row.evidence_steps },
      missing: null,
    };
  });
}

/** Each row's evidence as the source run and that run's own row, for the config advice. */
function chosenRows(
  rows: readonly CapacityTableRow[],
  sources: readonly Source[],
  perRun: ReadonlyMap<Source, CapacityRow[]>,
): Map<string, { source: Source; row: CapacityRow }> {
  const chosen = new Map<string, { source: Source; row: CapacityRow }>();
  for (const r of rows) {
    // A lower bound with no value (a search's first step generator-bound) advises nothing.
    if (!r.evidence || r.value === null) continue;
    const source = sources.find(
      (s) => s.result.run_id === r.evidence!.run_id && s.dir === r.evidence!.dir,
    );
    const row = source && perRun.get(source)?.find((x) => x.id === r.id);
    if (source && row) chosen.set(r.id, { source, row });
  }
  return chosen;
}

/**
 * Row 11 in place: without a presence run the quota is only assumed, so its arithmetic is a note,
 * not a value; with one, the lower of the knee and the quota's members, and its setting limit.
 */
function settlePresenceRow(
  rows: CapacityTableRow[],
  sources: readonly Source[],
  opts: TableOptions,
): void {
  const i = rows.findIndex((r) => r.id === 'presence_members');
  const topicUpdates = opts.topic_updates_per_s ?? DEFAULT_TOPIC_UPDATES_PER_S;
  if (!sources.some((s) => s.result.profile.scenario === 'presence')) {
    const quota = opts.presence_quota_per_s ?? DEFAULT_PRESENCE_QUOTA_PER_S;
    rows[i].notes.push(membersByQuota(quota, topicUpdates).text);
    return;
  }
  const quota =
    opts.presence_quota_per_s ?? presenceQuotaOf(sources) ?? DEFAULT_PRESENCE_QUOTA_PER_S;
  const before = rows[i];
  rows[i] = applyPresenceQuota(before, quota, topicUpdates);
  const limit = presenceSettingLimit(rows[i], before, quota, topicUpdates);
  if (limit) rows[i].setting_limit = limit;
}

/** capacity.json's list of the runs the table was built from. */
function sourceList(sources: readonly Source[]): CapacityFile['sources'] {
  return sources.map((s) => ({
    dir: s.dir,
    run_id: s.result.run_id,
    profile: s.result.profile.name,
    scenario: s.result.profile.scenario,
    status: s.result.status,
    sweep: s.result.sweep !== undefined,
    steps: s.result.steps.length,
  }));
}

/** capacity.json from sources already checked like for like (like-for-like.ts). */
export function buildCapacityFile(
  sources: readonly Source[],
  opts: TableOptions = {},
): CapacityFile {
  if (sources.length === 0) throw new Error('buildCapacityFile: no sources');
  const first = sources[0].result;
  const fromProfile = analysisOptionsFromProfile(first.profile.resolved).safe_lines;
  const safe: SafeLines = { ...DEFAULT_SAFE_LINES, ...fromProfile, ...opts.safe_lines };
  const perRun = perRunRows(sources, { safe_lines: safe });
  const rows = assembleRows(sources, perRun);
  const chosen = chosenRows(rows, sources, perRun);

  settlePresenceRow(rows, sources, opts);
  const j = rows.findIndex((r) => r.id === 'join_rate');
  const joinLimit = joinSettingLimit(rows[j], chosen.get('join_rate'));
  if (joinLimit) rows[j].setting_limit = joinLimit;
  applyJointBound(rows, sources, safe.cpu_pct);

  return {
    schema: CAPACITY_FILE_SCHEMA,
    created_at: (opts.now ?? new Date()).toISOString(),
    target: {
      url: first.target.builtin ? 'built-in server' : first.target.url,
      builtin: first.target.builtin,
      instance: first.target.instance,
      cpus: first.target.cpus ?? null,
    },
    rtcap_version: first.rtcap_version,
    safe_lines: safe,
    sources: sourceList(sources),
    values: Object.fromEntries(rows.map((r) => [r.id, r.value])),
    rows,
    config: assembleConfig(sources, chosen),
  };
}
