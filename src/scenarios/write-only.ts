/**
 * Seed 002 §7 row 6: write only — sends with no receivers. Each connection is a sender
 * alone on its own topic (`<target.topic>-w<i>`, `self: false`), and the step's send rate is
 * spread round-robin over them, so the server takes every message and delivers none:
 * expected is 0 per message (the only member is the sender). With load.ack the server
 * acknowledges each send, which is the proof it took them (docs/PROTOCOL.md §4.1).
 *
 * The figure is the highest send rate reached across the steps and, per step, what stopped
 * it rising (stop_reason): sends that failed or were never made, acks missing, in error or
 * late, or the sender's socket filling because the server was not reading.
 */
import type { Profile } from '../profile/schema.js';
import type { WriteOnlyExtra } from '../result/extra.js';
import { ackedPerS } from '../measure/ack-figures.js';
import {
  countAt,
  latencySummary,
  msText,
  reconnectPolicy,
  senderBacklogBytes,
  stepErrors,
  sumOf,
} from './common.js';
import { KIND_STRIDE, kindStream, type Scenario, type StepPlan } from './types.js';

export function writeOnlyTopic(profile: Profile, conn: number): string {
  return `${profile.target.topic}-w${conn}`;
}

export function planWriteOnly(profile: Profile, step: number): StepPlan {
  const s = profile.load.steps[step];
  const senders = s.connections;
  if (senders > KIND_STRIDE)
    throw new Error(
      `step ${step + 1}: ${senders} senders: each is a stream, at most ${KIND_STRIDE} per step`,
    );
  const sendRatePerS = s.send_rate;
  const durationMs = s.duration;
  const joinRatePerS = s.join_rate ?? profile.load.join_rate;
  const payloadBytes = s.payload_bytes ?? profile.load.payload_bytes;
  const count = senders > 0 ? countAt(sendRatePerS, durationMs) : 0;
  const firstStream = kindStream('broadcast', 0);
  return {
    step,
    label: s.label ?? `${sendRatePerS}/s from ${senders} senders, no receivers`,
    connections: senders,
    joinRatePerS,
    durationMs,
    payloadBytes,
    topicOf: (conn) => writeOnlyTopic(profile, conn),
    joinConfigOf: () => ({ private: false }),
    broadcasts: {
      ratePerS: sendRatePerS,
      count,
      senderOf: (k) => {
        const conn = k % senders;
        return { conn, stream: kindStream('broadcast', conn), seq: Math.floor(k / senders) };
      },
    },
    presence: null,
    inserts: null,
    streamInfo: (local) => ({
      key: writeOnlyTopic(profile, local - firstStream),
      excludeSender: !profile.load.self,
      sender: local - firstStream,
    }),
    primaryKind: 'broadcast',
    reconnect: reconnectPolicy(profile),
    params: {
      connections: senders,
      send_rate: sendRatePerS,
      duration_s: durationMs / 1000,
      join_rate: joinRatePerS,
      payload_bytes: payloadBytes,
      senders,
      receivers: profile.load.self ? 1 : 0,
      ack: profile.load.ack,
    },
  };
}

export interface StopInput {
  scheduled: number;
  sent: number;
  sendFailed: number;
  /** Sends the generator gave up on (a whole extra window behind schedule). */
  unsent: number;
  ackEnabled: boolean;
  acked: number;
  /** Acked sends with no reply within load.ack_timeout or by the end of the step. */
  unacked: number;
  ackErrors: number;
  /** The commonest ack error, verbatim. */
  topAckError: string | null;
  /** The commonest error that is not an ack error, verbatim (why sends failed). */
  topOtherError: string | null;
  ackP95Ms: number | null;
  sloP95Ms: number;
  sendBufferPeakBytes: number;
  payloadBytes: number;
}

/** Why sends stopped rising in a step, the first sign that applies; null when none did. */
export function stopReason(i: StopInput): string | null {
  const n = (v: number) => v.toLocaleString('en-US');
  if (i.unsent > 0)
    return `the generator fell a whole window behind and gave up on ${n(i.unsent)} of ${n(i.scheduled)} sends`;
  if (i.sendFailed > 0)
    return `${n(i.sendFailed)} sends failed (socket not open)${i.topOtherError ? `: ${i.topOtherError}` : ''}`;
  if (i.ackErrors > 0)
    return `${n(i.ackErrors)} sends refused${i.topAckError ? `: ${i.topAckError}` : ''}`;
  if (i.ackEnabled && i.unacked > 0)
    return `${n(i.unacked)} of ${n(i.sent)} sends never acknowledged`;
  if (i.sendBufferPeakBytes >= senderBacklogBytes(i.payloadBytes)) {
    return `sender socket buffer peaked at ${n(i.sendBufferPeakBytes)} bytes: the server was not reading`;
  }
  if (i.ackEnabled && i.ackP95Ms !== null && i.ackP95Ms > i.sloP95Ms)
    return `acks late: p95 ${msText(i.ackP95Ms)} > SLO ${msText(i.sloP95Ms)}`;
  return null;
}

function topBy(errors: Map<string, number>, pred: (reason: string) => boolean): string | null {
  let best: [string, number] | null = null;
  for (const e of errors) if (pred(e[0]) && (!best || e[1] > best[1])) best = e;
  return best ? best[0] : null;
}

export const writeOnly: Scenario = {
  name: 'write-only',
  seedSection: '§7 row 6 Write only (no receivers)',
  describe:
    'senders alone on their own topics (no receivers), acknowledged sends: the highest send rate reached and what stops it',
  plan: planWriteOnly,
  extra(ctx): Record<string, unknown> {
    const p = ctx.profile;
    const f = ctx.kinds.broadcast?.figures;
    const ackEnabled = p.load.ack && p.target.dialect === 'supabase';
    const acked = sumOf(ctx.collected, (c) => c.acks.ok);
    const errors = stepErrors(ctx.collected);
    const isAck = (r: string) => r.startsWith('ack error: ');
    return {
      senders: ctx.plan.connections,
      // The same figure as rates.acked_per_s: acks by ack time per steady second.
      acked_per_s: ackedPerS(ackEnabled, ctx.steadySeconds),
      stop_reason: stopReason({
        scheduled: sumOf(ctx.collected, (c) => c.sendStats.scheduled),
        sent: f?.sent ?? 0,
        sendFailed: f?.sendFailed ?? 0,
        unsent: sumOf(ctx.collected, (c) => c.sendStats.unsent),
        ackEnabled,
        acked,
        unacked: sumOf(ctx.collected, (c) => c.acks.unacked ?? 0),
        ackErrors: sumOf(ctx.collected, (c) => c.acks.errors),
        topAckError: topBy(errors, isAck),
        topOtherError: topBy(errors, (r) => !isAck(r)),
        ackP95Ms: latencySummary(ctx.ackLatency)?.p95 ?? null,
        sloP95Ms: p.slo.p95_ms,
        sendBufferPeakBytes: Math.max(0, ...ctx.collected.map((c) => c.sendBufferPeakBytes ?? 0)),
        payloadBytes: ctx.plan.payloadBytes,
      }),
    } satisfies Required<WriteOnlyExtra>;
  },
};
