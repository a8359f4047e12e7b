/** docs/METHOD.md §5: presence — members per topic × update share, and the quota arithmetic. */
import { presenceUpdateRateLimit } from '../../model/advice.js';
import type { SafeLines } from '../../model/capacity-row.js';
import { presenceLoad } from '../../model/metrics.js';
import { fmtInt, fmtMs, fmtPct, fmtRate } from '../../model/format.js';
import { verdictCell } from '../cells.js';
import type { PresenceExtra } from '../../result/extra.js';
import type { StepResult } from '../../result/result.js';
import type { ReportTable } from '../table.js';
import { fitNotes } from './common.js';
import type { ScenarioSection, SectionContext } from './types.js';

/** Member counts of docs/METHOD.md §5 quota table. */
const SEED_MEMBERS = [8, 200, 1000, 10_000];

const presenceExtra = (s: StepResult) => s.extra as Partial<PresenceExtra>;

/** docs/METHOD.md §5's result column: rate, p50, errors, then whatever gave way. */
function resultCell(s: StepResult, safe: SafeLines): string {
  const e = presenceExtra(s);
  const bits = [
    fmtRate(e.presence_deliveries_per_s),
    `p50 ${fmtMs(e.presence_latency_ms?.p50 ?? s.latency_ms?.p50)}`,
  ];
  // presence_errors are the step's errors that name presence: a part of the total, not more.
  const errs = Math.max(
    e.presence_errors ?? 0,
    Object.values(s.errors ?? {}).reduce((a, n) => a + n, 0),
  );
  const presenceErrs = e.presence_errors ?? 0;
  bits.push(
    errs === 0
      ? 'zero errors'
      : `${fmtInt(errs)} errors${presenceErrs > 0 ? ` (${fmtInt(presenceErrs)} presence)` : ''}`,
  );
  if (s.server?.cpu_pct != null && s.server.cpu_pct >= safe.cpu_pct)
    bits.push(`CPU ${fmtPct(s.server.cpu_pct)}`);
  if (s.server?.mem_pct != null && s.server.mem_pct >= safe.mem_pct)
    bits.push(`memory ${fmtPct(s.server.mem_pct)}`);
  if (e.snapshot_bytes_per_member != null)
    bits.push(`snapshot ${fmtInt(e.snapshot_bytes_per_member / 1024)} KB per member`);
  if (s.connections.disconnected > 0)
    bits.push(`${fmtInt(s.connections.disconnected)} disconnected`);
  return bits.join(', ');
}

/**
 * One step's row: members, what ran, load, result, verdict and the docs/METHOD.md §5 quota
 * arithmetic.
 */
function stepRow(s: StepResult, safe: SafeLines): string[] {
  const e = presenceExtra(s);
  const share =
    e.update_share_per_s == null ? '—' : `${fmtPct(e.update_share_per_s * 100, 0)} updating/s`;
  const scenario = `${fmtInt(s.connections.joined)} connections${e.topics != null ? ` in ${fmtInt(e.topics)} topic${e.topics === 1 ? '' : 's'}` : ''}, ${share}`;
  const load = presenceLoad(s);
  const quota = e.presence_quota_per_s ?? null;
  const ofQuota =
    quota && load !== null ? `${fmtPct((load / quota) * 100, 0)} of ${fmtRate(quota)}` : '—';
  const members = e.members_per_topic ?? null;
  const topicRate =
    e.topic_updates_per_s ??
    (members !== null && e.update_share_per_s != null ? members * e.update_share_per_s : null);
  const allowed =
    e.allowed_topic_updates_per_s ??
    (quota && members ? presenceUpdateRateLimit(quota, members) : null);
  return [
    fmtInt(members),
    scenario,
    fmtRate(load),
    resultCell(s, safe),
    verdictCell(s, safe),
    ofQuota,
    `${fmtRate(topicRate)} / ${fmtRate(allowed)}`,
  ];
}

function stepsTable(ctx: SectionContext): ReportTable {
  const safe = ctx.analysis.safe_lines;
  return {
    id: 's5-presence',
    title: '5 Presence',
    // The last two columns put the docs/METHOD.md §5 arithmetic next to the measurement.
    columns: [
      'members per topic',
      'scenario',
      'members² × updates/s',
      'result',
      'verdict',
      'of the quota',
      'updates/s per topic: run / allowed (quota ÷ members)',
    ],
    align: ['right', 'left', 'right', 'left', 'left', 'right', 'right'],
    rows: ctx.result.steps.map((s) => stepRow(s, safe)),
    notes: [
      'Quota needed = members² × update rate; per-topic update limit = quota ÷ members (seed §5).',
      ...fitNotes(ctx, ['presence_deliveries_vs_load']),
    ],
  };
}

/**
 * The allowed update rate per topic at the run's quota (or the advised one), for the seed's
 * member counts and those measured; null when no quota is known.
 */
function quotaTable(ctx: SectionContext): ReportTable | null {
  const steps = ctx.result.steps;
  const quotas = steps
    .map((s) => presenceExtra(s).presence_quota_per_s)
    .filter((q): q is number => typeof q === 'number');
  const quota = quotas.length
    ? quotas[0]
    : (ctx.analysis.advice.find((a) => a.key === 'max_presence_events_per_second')?.value ?? null);
  if (quota == null) return null;
  const measured = steps
    .map((s) => presenceExtra(s).members_per_topic)
    .filter((m): m is number => typeof m === 'number');
  const members = [...new Set([...SEED_MEMBERS, ...measured])].sort((a, b) => a - b);
  return {
    id: 's5-quota',
    title: `Allowed update rate per topic at a quota of ${fmtRate(quota)}`,
    columns: ['members', 'allowed updates/s per topic'],
    rows: members.map((m) => [fmtInt(m), fmtRate(presenceUpdateRateLimit(quota, m))]),
  };
}

export const presence: ScenarioSection = {
  scenario: 'presence',
  title: 'Presence (seed 002 §5)',
  tables: (ctx) => {
    const quota = quotaTable(ctx);
    return quota ? [stepsTable(ctx), quota] : [stepsTable(ctx)];
  },
};
