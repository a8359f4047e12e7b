/** Tables more than one scenario prints. */
import type { FitId } from '../../model/fit.js';
import { fmtInt, fmtMs, fmtNum, fmtPct, fmtRate, fmtRatioPct } from '../../model/format.js';
import { connectionsCell, deliveryCell, percentileCell, stepName, verdictCell } from '../cells.js';
import type { ReportTable } from '../table.js';
import type { SectionContext } from './types.js';

/** The seed's formula lines for the named fits (only those the analysis has). */
export function fitNotes(ctx: SectionContext, ids: readonly FitId[]): string[] {
  return ctx.analysis.fits.filter((f) => ids.includes(f.spec.id)).map((f) => f.text);
}

/** docs/METHOD.md §1.1 / §2.2: connections | server memory | delivery | verdict. */
export function connectionsTable(ctx: SectionContext, id: string, title: string): ReportTable {
  const safe = ctx.analysis.safe_lines;
  return {
    id,
    title,
    columns: ['connections', 'server memory', 'delivery', 'verdict'],
    align: ['right', 'right', 'right', 'left'],
    rows: ctx.result.steps.map((s) => [
      connectionsCell(s),
      fmtPct(s.server?.mem_pct),
      deliveryCell(s),
      verdictCell(s, safe),
    ]),
    notes: fitNotes(ctx, ['memory_vs_connections']),
  };
}

/**
 * Every step with every headline figure: the evidence behind the seed-shaped
 * tables, including the generator's own health so a reader can see which steps count.
 */
export function stepsTable(ctx: SectionContext): ReportTable {
  const safe = ctx.analysis.safe_lines;
  return {
    id: 'steps',
    title: 'All steps',
    columns: [
      'step',
      'connections target / joined / failed / disconnected',
      'sent/s',
      'delivered/s',
      'delivery',
      'first receive p50 / p95 / p99 / p99.9 / max',
      'fan-out span p50 / p95',
      'server CPU / mem / RSS',
      'generator CPU / lag p99 / offered',
      'verdict',
      'reasons',
    ],
    align: [
      'left',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'left',
      'left',
    ],
    rows: ctx.result.steps.map((s) => {
      const c = s.connections;
      const l = s.latency_ms;
      return [
        stepName(s),
        `${fmtInt(c?.target)} / ${fmtInt(c?.joined)} / ${fmtInt(c?.failed)} / ${fmtInt(c?.disconnected)}`,
        fmtRate(s.rates?.sent_per_s),
        fmtRate(s.rates?.delivered_per_s),
        deliveryCell(s),
        `${percentileCell(l, 'p50')} / ${percentileCell(l, 'p95')} / ${percentileCell(l, 'p99')} / ${percentileCell(l, 'p999')} / ${fmtMs(l?.max)}`,
        `${fmtMs(s.fanout_span_ms?.p50)} / ${fmtMs(s.fanout_span_ms?.p95)}`,
        `${fmtPct(s.server?.cpu_pct)} / ${fmtPct(s.server?.mem_pct)} / ${s.server?.rss_mb == null ? '—' : `${fmtInt(s.server.rss_mb)} MiB`}`,
        `${fmtPct(s.generator?.cpu_pct, 0)} / ${fmtMs(s.generator?.event_loop_lag_p99_ms)} / ${fmtRatioPct(s.generator?.offered_ratio)}`,
        verdictCell(s, safe),
        (s.verdict_reasons ?? []).join('; ') || '—',
      ];
    }),
  };
}

/** Megabytes per second as docs/METHOD.md §3 writes egress: "114 MiB/s ≈ 956 Mbps". */
export function egressCell(mibPerS: number | null | undefined): string {
  if (mibPerS == null) return '—';
  const mbps = (mibPerS * 1024 * 1024 * 8) / 1e6;
  return `${fmtNum(mibPerS, mibPerS < 10 ? 1 : 0)} MiB/s ≈ ${fmtInt(mbps)} Mbps`;
}
