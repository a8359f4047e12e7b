/**
 * docs/METHOD.md §2: private broadcast — docs/METHOD.md §2.1 sends × deliveries by topology, §2.2
 * connections.
 */
import { fmtInt, fmtMs, fmtRate } from '../../model/format.js';
import { deliveryCell, stepName, verdictCell } from '../cells.js';
import type { BroadcastPrivateExtra } from '../../result/extra.js';
import { connectionsTable, fitNotes } from './common.js';
import type { ScenarioSection } from './types.js';

function topology(e: Partial<BroadcastPrivateExtra>): string {
  if (e.rooms == null || e.members_per_room == null) return '—';
  const rate = e.room_send_rate_per_s == null ? '' : `, ${e.room_send_rate_per_s}/s per room`;
  return `${fmtInt(e.rooms)} rooms × ${fmtInt(e.members_per_room)}${rate}`;
}

export const broadcastPrivate: ScenarioSection = {
  scenario: 'broadcast-private',
  title: 'Private broadcast (seed 002 §2)',
  tables: (ctx) => [
    {
      id: 's2.1-sends-deliveries',
      title: '2.1 Sends and deliveries',
      columns: [
        'step',
        'topology',
        'sends/s',
        'deliveries/s',
        'first receive p50',
        'delivery',
        'verdict',
      ],
      align: ['left', 'left', 'right', 'right', 'right', 'right', 'left'],
      rows: ctx.result.steps.map((s) => {
        const e = s.extra as Partial<BroadcastPrivateExtra>;
        // docs/METHOD.md §2.1 adds p95 in brackets where it, not p50, shows the trouble
        // ("93 ms (p95 6.4 s)").
        const p95 = s.latency_ms?.p95;
        const p50 =
          fmtMs(s.latency_ms?.p50) +
          (p95 != null && p95 > ctx.result.slo.p95_ms ? ` (p95 ${fmtMs(p95)})` : '');
        return [
          stepName(s),
          topology(e),
          fmtRate(s.rates?.sent_per_s),
          fmtRate(s.rates?.delivered_per_s),
          p50,
          deliveryCell(s),
          verdictCell(s, ctx.analysis.safe_lines),
        ];
      }),
      notes: fitNotes(ctx, ['cpu_vs_sends', 'cpu_vs_deliveries']),
    },
    connectionsTable(ctx, 's2.2-connections', '2.2 Connections'),
  ],
};
