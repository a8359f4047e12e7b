/** docs/METHOD.md §3: payload size — delivery, fan-out span and egress per payload. */
import { fmtBytes, fmtInt, fmtMs } from '../../model/format.js';
import { deliveryCell, verdictCell } from '../cells.js';
import type { PayloadSizeExtra } from '../../result/extra.js';
import { egressCell } from './common.js';
import type { ScenarioSection } from './types.js';

const SIDE: Record<NonNullable<PayloadSizeExtra['failure_side']>, string> = {
  'server-could-not-send': 'the server could not send (sends not leaving)',
  'receivers-lost': 'receivers lost messages',
};

function hostNetCell(
  h:
    | { net_tx_mib_per_s: number | null; net_rx_mib_per_s: number | null; interfaces: string[] }
    | null
    | undefined,
): string {
  if (!h || h.net_tx_mib_per_s === null) return '—';
  return `${egressCell(h.net_tx_mib_per_s)} / ${h.net_rx_mib_per_s === null ? '—' : egressCell(h.net_rx_mib_per_s)} (${h.interfaces.join(', ') || 'no interface'})`;
}

export const payloadSize: ScenarioSection = {
  scenario: 'payload-size',
  title: 'Payload size (seed 002 §3)',
  tables: (ctx) => [
    {
      id: 's3-payload',
      title: '3 Payload size',
      // egress: what the receivers read (application bytes); host tx/rx: the generator host's
      // interfaces (systeminformation) — on loopback both directions of every socket.
      columns: [
        'payload',
        'delivery',
        'fan-out span p50',
        'egress',
        'generator host tx / rx',
        'verdict',
      ],
      align: ['right', 'left', 'right', 'right', 'right', 'left'],
      rows: ctx.result.steps.map((s) => {
        const e = s.extra as Partial<PayloadSizeExtra>;
        // docs/METHOD.md §3 writes "only 3 of 5 sent": when sends did not leave, say how many did
        // before the rate.
        const m = s.messages;
        const short =
          m && m.scheduled > 0 && m.sent < m.scheduled
            ? `only ${fmtInt(m.sent)}/${fmtInt(m.scheduled)} sent; `
            : '';
        // ws accepts a send into its buffer even when the server does not read, so a growing
        // buffer, not the sent count, is what shows "the server could not send"
        // (docs/METHOD.md §3).
        const buffered = e.send_buffer_peak_bytes
          ? ` (send buffer peak ${fmtBytes(e.send_buffer_peak_bytes)})`
          : '';
        const side = e.failure_side
          ? ` — ${SIDE[e.failure_side]}${buffered}`
          : buffered
            ? ` —${buffered}`
            : '';
        return [
          fmtBytes(s.params.payload_bytes),
          short + deliveryCell(s),
          fmtMs(s.fanout_span_ms?.p50),
          egressCell(s.rates?.egress_mib_per_s),
          hostNetCell(s.generator?.host),
          verdictCell(s, ctx.analysis.safe_lines) + side,
        ];
      }),
    },
  ],
  notes: (ctx) => [
    ...ctx.result.steps
      .filter(
        (s) =>
          s.messages && s.messages.sent < s.messages.scheduled && s.verdict !== 'generator-bound',
      )
      .map(
        (s) =>
          `Step ${s.index}: ${fmtInt(s.messages.sent)} of ${fmtInt(s.messages.scheduled)} scheduled messages were sent; seed §3 reads this as the server not taking sends (egress), not receivers losing messages.`,
      ),
    // The evidence behind "the server could not send", so a reader can check the call.
    ...ctx.result.steps.flatMap((s) => {
      const e = s.extra as Partial<PayloadSizeExtra>;
      return e.failure_side && e.sender_evidence?.length
        ? [
            `Step ${s.index} (${fmtBytes(s.params.payload_bytes)}): ${e.sender_evidence.join('; ')}.`,
          ]
        : [];
    }),
  ],
};
