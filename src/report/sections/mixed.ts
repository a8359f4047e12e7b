/**
 * Mixed load: each component's latency against its solo run (docs/METHOD.md §6: CDC 2.6 s → 15 s
 * under mixed load).
 */
import { fmtMs, fmtRate, fmtRatioPct } from '../../model/format.js';
import { stepName } from '../cells.js';
import type { LatencySummaryMs, MixedExtra } from '../../result/extra.js';
import type { ScenarioSection } from './types.js';

function pair(l: LatencySummaryMs | null | undefined): string {
  return l ? `${fmtMs(l.p50)} / ${fmtMs(l.p95)}` : '—';
}

function factor(mixed: LatencySummaryMs, solo: LatencySummaryMs | null): string {
  if (!solo || mixed.p50 == null || solo.p50 == null || solo.p50 <= 0) return '—';
  return `× ${(mixed.p50 / solo.p50).toFixed(1)}`;
}

export const mixed: ScenarioSection = {
  scenario: 'mixed',
  title: 'Mixed load: broadcast + presence + Postgres Changes',
  tables: (ctx) => [
    {
      id: 'mixed',
      title: 'Mixed load against solo',
      columns: [
        'step',
        'component',
        'p50 / p95 mixed',
        'p50 / p95 solo',
        'p50 change',
        'delivered/s',
        'delivery',
        'step verdict',
      ],
      align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'left'],
      rows: ctx.result.steps.flatMap((s) => {
        const comps = (s.extra as Partial<MixedExtra>).components ?? [];
        // A step running one component alone is that component's solo run: its latency goes in the
        // solo column.
        const soloStep = comps.length === 1 && comps[0].solo_latency_ms == null;
        return comps.map((c) => [
          stepName(s),
          c.name,
          soloStep ? '—' : pair(c.latency_ms),
          soloStep ? pair(c.latency_ms) : pair(c.solo_latency_ms),
          soloStep ? '—' : factor(c.latency_ms, c.solo_latency_ms),
          fmtRate(c.delivered_per_s),
          fmtRatioPct(c.delivery_rate),
          s.verdict,
        ]);
      }),
      notes: [
        'Latency of every receipt from its scheduled send, update or insert time; solo: the latest earlier step that ran the component alone.',
      ],
    },
  ],
};
