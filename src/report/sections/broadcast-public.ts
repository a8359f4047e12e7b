/**
 * docs/METHOD.md §1: public broadcast — docs/METHOD.md §1.1 connections and §1.2 deliveries tables.
 */
import { fmtPct, fmtRate } from '../../model/format.js';
import { latencyTriple, verdictCell } from '../cells.js';
import { connectionsTable, fitNotes } from './common.js';
import type { ScenarioSection } from './types.js';

export const broadcastPublic: ScenarioSection = {
  scenario: 'broadcast-public',
  title: 'Public broadcast (seed 002 §1)',
  tables: (ctx) => [
    connectionsTable(ctx, 's1.1-connections', '1.1 Connections'),
    {
      id: 's1.2-deliveries',
      title: '1.2 Deliveries',
      columns: ['deliveries/s', 'server CPU', 'latency (p50 / p95 / p99)', 'verdict'],
      align: ['right', 'right', 'right', 'left'],
      rows: ctx.result.steps.map((s) => [
        fmtRate(s.rates?.delivered_per_s),
        fmtPct(s.server?.cpu_pct),
        latencyTriple(s.latency_ms),
        verdictCell(s, ctx.analysis.safe_lines),
      ]),
      notes: fitNotes(ctx, ['cpu_vs_deliveries']),
    },
  ],
};
