/**
 * docs/METHOD.md §7 row 6 write-only's figures (StepResult.extra): acknowledged sends per second
 * and, per step, what stopped the send rate rising.
 */
import { ackedPerS } from '../measure/ack-figures.js';
import type { WriteOnlyExtra } from '../result/extra.js';
import { sumOf } from '../util/sum.js';
import { stepErrors } from './errors.js';
import { latencySummary, msText, senderBacklogBytes } from './extra-common.js';
import type { StepContext } from './step-context.js';

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

export function writeOnlyExtra(ctx: StepContext): WriteOnlyExtra {
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
}
