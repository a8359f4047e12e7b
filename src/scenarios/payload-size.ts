/**
 * Seed 002 §3: payload size. Public broadcast as §1 — every connection on one topic, one
 * sender (connection 0) at a fixed rate — with one payload size per step (64 B, 1 KB, 10 KB,
 * 100 KB). Expected per message: the members joined at its scheduled time, minus the sender.
 *
 * When delivery falls short, the step says which side failed (seed 002 §3: a bandwidth limit
 * shows as the sender failing to send, not as receivers losing messages): sends that did not
 * leave — scheduled but not sent, sitting in the sender's socket buffer, unacknowledged or
 * acknowledged late with load.ack — are "the server could not send"; a sender side that kept
 * up while receivers came up short is "receivers lost messages".
 */
import type { Profile } from '../profile/schema.js';
import type { PayloadSizeExtra } from '../result/extra.js';
import { planBroadcastPublic } from './broadcast-public.js';
import { latencySummary, msText, senderBacklogBytes, sumOf } from './common.js';
import type { Scenario, StepPlan } from './types.js';

export function planPayloadSize(profile: Profile, step: number): StepPlan {
  const plan = planBroadcastPublic(profile, step);
  const s = profile.load.steps[step];
  return {
    ...plan,
    label:
      s.label ??
      `${bytesLabel(plan.payloadBytes)} × ${s.send_rate}/s to ${plan.params.receivers} receivers`,
  };
}

/** 64 B, 1 KB, 100 KB, 1.5 MB (seed 002 §3's spelling of sizes). */
export function bytesLabel(bytes: number): string {
  const trim = (v: number) => String(Number(v.toFixed(1)));
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trim(bytes / 1024)} KB`;
  return `${trim(bytes / (1024 * 1024))} MB`;
}

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

export const payloadSize: Scenario = {
  name: 'payload-size',
  seedSection: '§3 Payload size',
  describe:
    'public broadcast at a fixed rate and connection count, one payload size per step: delivery, fan-out span, egress MiB/s, and which side failed',
  plan: planPayloadSize,
  extra(ctx): Record<string, unknown> {
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
  },
};
