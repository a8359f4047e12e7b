/**
 * docs/METHOD.md §3 payload size's figures (StepResult.extra): when delivery fell short, which side
 * failed — sends that did not leave the sender ("the server could not send") or receivers that came
 * up short — with the sender-side signs behind it.
 */
import type { PayloadSizeExtra } from '../result/extra.js';
import { sumOf } from '../util/sum.js';
import { latencySummary, msText, senderBacklogBytes } from './extra-common.js';
import type { StepContext } from './step-context.js';

export interface SenderSideInput {
  expected: number;
  received: number;
  scheduled: number;
  sent: number;
  /** load.ack on (supabase dialect): every send should come back acknowledged. */
  ackEnabled: boolean;
  acked: number;
  ackP95Ms: number | null;
  sloP95Ms: number;
  sendBufferPeakBytes: number;
  payloadBytes: number;
}

/** Signs that sends did not leave the sender, one line each; empty when the sender side kept up. */
export function senderSideEvidence(i: SenderSideInput): string[] {
  const n = (v: number) => v.toLocaleString('en-US');
  const out: string[] = [];
  if (i.sent < i.scheduled)
    out.push(`only ${n(i.sent)} of ${n(i.scheduled)} scheduled messages were sent`);
  if (i.ackEnabled && i.acked < i.sent)
    out.push(`only ${n(i.acked)} of ${n(i.sent)} sends acknowledged`);
  if (i.ackEnabled && i.ackP95Ms !== null && i.ackP95Ms > i.sloP95Ms)
    out.push(`acks late: p95 ${msText(i.ackP95Ms)} > SLO ${msText(i.sloP95Ms)}`);
  if (i.sendBufferPeakBytes >= senderBacklogBytes(i.payloadBytes)) {
    out.push(
      `${n(i.sendBufferPeakBytes)} bytes waited in the sender's socket (the server was not reading)`,
    );
  }
  return out;
}

/** Which side failed when delivery fell short; null when nothing was lost. */
export function failureSide(i: SenderSideInput): PayloadSizeExtra['failure_side'] {
  if (i.expected === 0 || i.received >= i.expected) return null;
  return senderSideEvidence(i).length > 0 ? 'server-could-not-send' : 'receivers-lost';
}

export function payloadSizeExtra(ctx: StepContext): PayloadSizeExtra {
  const f = ctx.kinds.broadcast?.figures;
  const p = ctx.profile;
  const input: SenderSideInput = {
    expected: f?.expected ?? 0,
    received: f?.received ?? 0,
    scheduled: sumOf(ctx.collected, (c) => c.sendStats.scheduled),
    sent: f?.sent ?? 0,
    ackEnabled: p.load.ack && p.target.dialect === 'supabase',
    acked: sumOf(ctx.collected, (c) => c.acks.ok),
    ackP95Ms: ctx.ackLatency.totalCount > 0 ? latencySummary(ctx.ackLatency)!.p95 : null,
    sloP95Ms: p.slo.p95_ms,
    sendBufferPeakBytes: Math.max(0, ...ctx.collected.map((c) => c.sendBufferPeakBytes ?? 0)),
    payloadBytes: ctx.plan.payloadBytes,
  };
  return {
    send_buffer_peak_bytes: input.sendBufferPeakBytes,
    ack_latency_ms: latencySummary(ctx.ackLatency),
    failure_side: failureSide(input),
    sender_evidence: senderSideEvidence(input),
  } satisfies Required<PayloadSizeExtra>;
}
