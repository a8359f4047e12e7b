/**
 * docs/METHOD.md §4: connection and authorisation rate — join success per join rate, with the
 * pool's ceiling.
 */
import { fmtInt, fmtMs, fmtRate } from '../../model/format.js';
import { deliveryCell, verdictCell } from '../cells.js';
import type { JoinRateExtra } from '../../result/extra.js';
import { fitNotes } from './common.js';
import type { ScenarioSection } from './types.js';

function successCell(e: Partial<JoinRateExtra>, joined: number, target: number): string {
  const attempts = e.join_attempts ?? target;
  const ok = e.join_succeeded ?? joined;
  if (attempts === 0) return '—';
  if (ok === attempts) return '100%';
  const rejected = e.join_rejected ?? attempts - ok;
  // docs/METHOD.md §4 writes both shapes: "15,998 / 16,000" and "58.3% rejected (9,330 failures)".
  return `${fmtInt(ok)} / ${fmtInt(attempts)} (${sharePct(rejected / attempts)} rejected)`;
}

/** A share of failures, never shown as 0 when there were some. */
function sharePct(r: number): string {
  const pct = r * 100;
  return pct > 0 && pct < 0.1 ? '<0.1%' : `${pct.toFixed(1)}%`;
}

/** "30 s"; "not within the step" when rejections ran to its end; "—" when nothing was rejected. */
function recoveryCell(e: Partial<JoinRateExtra>): string {
  if (e.first_rejection_to_recovery_s != null)
    return `${fmtInt(e.first_rejection_to_recovery_s)} s`;
  return e.recovered === false ? 'not within the step' : '—';
}

function topReason(r: Record<string, number> | undefined): string {
  const e = Object.entries(r ?? {}).sort((a, b) => b[1] - a[1]);
  return e.length ? `${fmtInt(e[0][1])} × ${e[0][0]}${e.length > 1 ? ', …' : ''}` : '—';
}

export const joinRate: ScenarioSection = {
  scenario: 'join-rate',
  title: 'Connection and authorisation rate (seed 002 §4)',
  notes: (ctx) =>
    ctx.result.steps.flatMap((s) => {
      const e = s.extra as Partial<JoinRateExtra>;
      if (e.join_attempts == null || e.join_succeeded == null || e.join_rejected == null) return [];
      if (e.join_attempts === e.join_succeeded) return [];
      const parts = [
        `${fmtInt(e.join_succeeded)} joined`,
        `${fmtInt(e.join_rejected)} refused by the server`,
      ];
      if (e.join_failed_other)
        parts.push(`${fmtInt(e.join_failed_other)} failed otherwise (timeouts, network)`);
      if (e.join_pending_at_end)
        parts.push(`${fmtInt(e.join_pending_at_end)} unanswered at the end`);
      const retries = e.reconnects
        ? ` (${fmtInt(e.reconnects)} of them reconnects with backoff and jitter)`
        : '';
      return [
        `Step ${s.index}: ${fmtInt(e.join_attempts)} join attempts${retries}: ${parts.join(', ')}.`,
      ];
    }),
  tables: (ctx) => {
    const steps = ctx.result.steps;
    const e0 = steps
      .map((s) => s.extra as Partial<JoinRateExtra>)
      .find((e) => e.predicted_ceiling_per_s != null || e.db_pool != null);
    const notes = fitNotes(ctx, ['join_ceiling_vs_pool_over_check']).filter(
      (t) => !t.includes('no fit'),
    );
    if (e0) {
      const pool = e0.db_pool ?? null;
      const check = e0.auth_check_ms_p50 ?? null;
      const predicted =
        e0.predicted_ceiling_per_s ?? (pool !== null && check ? pool / (check / 1000) : null);
      const knee = ctx.analysis.knees.join_rate;
      notes.push(
        `Predicted ceiling: db_pool ÷ check time = ${pool ?? '—'} ÷ ${fmtMs(check)} ≈ ${fmtRate(predicted)}; measured: highest stable ${fmtRate(knee?.last_stable?.value ?? null)}, first broken ${fmtRate(knee?.first_broken?.value ?? null)}.`,
      );
    }
    return [
      {
        id: 's4-join-rate',
        title: '4 Join rate',
        columns: [
          'join rate',
          'joins/s answered',
          'join p95',
          'join success',
          'delivery',
          'rejections (verbatim)',
          'recovery',
          'measured ceiling',
          'verdict',
        ],
        align: ['right', 'right', 'right', 'right', 'right', 'left', 'right', 'right', 'left'],
        rows: steps.map((s) => {
          const e = s.extra as Partial<JoinRateExtra>;
          return [
            fmtRate(s.params.join_rate),
            // Measured: the ramp's first joins by reply time (rates.joins_per_s), never the rate
            // asked.
            fmtRate(s.rates?.joins_per_s ?? null),
            fmtMs(s.connections.join_latency_ms?.p95 ?? null),
            successCell(e, s.connections.joined, s.connections.target),
            // docs/METHOD.md §4 at 130/s: every join accepted, and nothing delivered.
            deliveryCell(s),
            topReason(e.rejections_by_reason),
            recoveryCell(e),
            fmtRate(e.measured_ceiling_per_s),
            verdictCell(s, ctx.analysis.safe_lines),
          ];
        }),
        notes,
      },
    ];
  },
};
