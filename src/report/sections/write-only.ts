/** docs/METHOD.md §7 row 6: sends with no receivers — the highest send rate and where it stops. */
import { fmtInt, fmtPct, fmtRate } from '../../model/format.js';
import { verdictCell } from '../cells.js';
import type { WriteOnlyExtra } from '../../result/extra.js';
import { fitNotes } from './common.js';
import type { ScenarioSection } from './types.js';

export const writeOnly: ScenarioSection = {
  scenario: 'write-only',
  title: 'Write only, no receivers (seed 002 §7 row 6)',
  tables: (ctx) => [
    {
      id: 's7-write-only',
      title: 'Write only',
      columns: [
        'send rate asked',
        'sent/s',
        'acked/s',
        'send failures',
        'server CPU',
        'verdict',
        'stopped by',
      ],
      align: ['right', 'right', 'right', 'right', 'right', 'left', 'left'],
      rows: ctx.result.steps.map((s) => {
        const e = s.extra as Partial<WriteOnlyExtra>;
        return [
          fmtRate(s.params.send_rate),
          fmtRate(s.rates?.sent_per_s),
          fmtRate(s.rates?.acked_per_s ?? e.acked_per_s),
          fmtInt(s.messages?.send_failed),
          fmtPct(s.server?.cpu_pct),
          verdictCell(s, ctx.analysis.safe_lines),
          e.stop_reason ?? '—',
        ];
      }),
      notes: fitNotes(ctx, ['cpu_vs_sends']),
    },
  ],
};
