/**
 * docs/METHOD.md §6: Postgres Changes — subscriptions, reconciliation, delivery over rounds, poller
 * peak.
 */
import { fmtInt, fmtMs, fmtRate } from '../../model/format.js';
import { latencyTriple, stepName, verdictCell } from '../cells.js';
import type { PostgresChangesExtra } from '../../result/extra.js';
import type { ScenarioSection } from './types.js';

export const postgresChanges: ScenarioSection = {
  scenario: 'postgres-changes',
  title: 'Postgres Changes (seed 002 §6)',
  tables: (ctx) => [
    {
      id: 's6-postgres-changes',
      title: '6 Postgres Changes',
      columns: [
        'subscriptions',
        'reconciliation',
        'deliveries',
        'poll peak',
        'latency from insert (p50 / p95 / p99)',
        'verdict',
        'latency from commit_timestamp',
        'changes/s',
      ],
      align: ['right', 'right', 'left', 'right', 'right', 'left', 'right', 'right'],
      rows: ctx.result.steps.map((s) => {
        const e = s.extra as Partial<PostgresChangesExtra>;
        const subs = e.subscribers ?? null;
        const got = e.subscribed ?? null;
        const recon =
          subs == null || got == null
            ? '—'
            : got >= subs
              ? '100%'
              : `${fmtInt(got)} (${fmtInt(subs - got)} short)`;
        const rounds = e.rounds ?? null;
        const per = rounds && e.deliveries_expected != null ? e.deliveries_expected / rounds : null;
        const missing = e.deliveries_missing ?? null;
        const deliv =
          rounds == null ? '—' : `${rounds} × ${fmtInt(per)}, missing ${fmtInt(missing)}`;
        const label = s.label && s.label !== `step ${s.index}` ? stepName(s) : fmtInt(subs);
        return [
          label,
          recon,
          deliv,
          fmtMs(e.poll_ms_max),
          latencyTriple(e.latency_from_insert_ms ?? s.latency_ms),
          verdictCell(s, ctx.analysis.safe_lines),
          latencyTriple(e.latency_from_commit_ms),
          fmtRate(e.changes_per_s),
        ];
      }),
      notes: [
        'Expected per row: the subscribers whose "Subscribed to PostgreSQL" confirmation had arrived by its scheduled insert time; latency is every receipt\'s, from that time (client clock) and from commit_timestamp (server clock). Poll peak: the server\'s last-poll duration, sampled once a second from /metrics.',
      ],
    },
  ],
};
