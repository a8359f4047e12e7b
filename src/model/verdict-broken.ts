/**
 * The second class of a verdict, broken (docs/VERDICTS.md): a message, a send, a presence
 * track, a join or a socket the server failed; and the server that went away mid-step.
 */
import { AFTER_FIRST_BINARY_PUSH, BINARY_PUSH_ADVICE } from '../result/binary-push-close.js';
import { fmtInt, fmtRatioPct } from './format.js';
import { limitWords } from './limit.js';
import { serverRejectionIn } from './step-limit.js';
import type { VerdictInput, VerdictSlo } from './verdict-input.js';

/** Delivery below the SLO's rate, or messages lost when every one must arrive. */
function deliveryReasons(input: VerdictInput, slo: VerdictSlo): string[] {
  const rate = input.delivery_rate;
  if (rate !== null && rate < slo.delivery_rate) {
    const lost = input.messages_lost > 0 ? ` (${fmtInt(input.messages_lost)} lost)` : '';
    return [`delivery ${fmtRatioPct(rate)} < SLO ${fmtRatioPct(slo.delivery_rate)}${lost}`];
  }
  if (input.messages_lost > 0 && slo.delivery_rate >= 1)
    return [`${fmtInt(input.messages_lost)} messages lost`];
  return [];
}

/** A send counts as taken only once acknowledged; a presence track only once answered. */
function unansweredReasons(input: VerdictInput): string[] {
  const out: string[] = [];
  const unacked = input.acks?.unacked ?? 0;
  if (unacked > 0)
    out.push(`${fmtInt(unacked)} send${unacked === 1 ? '' : 's'} never acknowledged`);
  const refused = input.acks?.errors ?? 0;
  if (refused > 0)
    out.push(`${fmtInt(refused)} send${refused === 1 ? '' : 's'} refused (ack error)`);
  const unanswered = input.presence_tracks?.unanswered ?? 0;
  if (unanswered > 0)
    out.push(`${fmtInt(unanswered)} presence track${unanswered === 1 ? '' : 's'} never answered`);
  return out;
}

/** Failed joins: any one breaks, unless the SLO allows a share of them to fail. */
function joinFailureReason(input: VerdictInput, slo: VerdictSlo): string | null {
  if (input.connections_failed <= 0) return null;
  const need = slo.join_success ?? 1;
  const target = input.connections_target ?? 0;
  if (need >= 1 || target <= 0)
    return `${fmtInt(input.connections_failed)} connections failed or were rejected`;
  const success = Math.max(0, target - input.connections_failed) / target;
  if (success >= need) return null;
  return `joins ${fmtRatioPct(success)} succeeded < SLO ${fmtRatioPct(need)} (${fmtInt(input.connections_failed)} failed or rejected)`;
}

/**
 * Senders the server closed right after their first binary broadcast push (load/step-sends
 * names such closes): the server cannot read binary frames; what to set, or null.
 */
export function binaryPushReason(input: VerdictInput): string | null {
  let n = 0;
  for (const [reason, count] of Object.entries(input.errors ?? {}))
    if (reason.includes(AFTER_FIRST_BINARY_PUSH)) n += count;
  if (n === 0) return null;
  const who = n === 1 ? 'a sender right after its' : `${fmtInt(n)} senders right after their`;
  return `the server closed ${who} first binary broadcast push (it cannot read binary frames): ${BINARY_PUSH_ADVICE}`;
}

/**
 * Connections the server refused in its own words (an error reply to a join, a refused upgrade),
 * its most frequent refusal quoted as the capacity row quotes it (model/limit): "server
 * rejection: “join refused: IncreaseConnectionPool: …” ×98"; null when none failed or the server
 * gave no words.
 */
export function serverRefusalReason(input: VerdictInput): string | null {
  const said = serverRejectionIn(input.errors ?? {}, input.connections_failed);
  return said ? limitWords({ kind: 'server-rejection', ...said }) : null;
}

/** Every way the step failed its function: messages, sends, joins, sockets, server-side errors. */
export function brokenReasons(input: VerdictInput, slo: VerdictSlo): string[] {
  const binary = binaryPushReason(input);
  const refusal = serverRefusalReason(input);
  const out = [
    ...(binary ? [binary] : []),
    ...(refusal ? [refusal] : []),
    ...deliveryReasons(input, slo),
    ...unansweredReasons(input),
  ];
  const joins = joinFailureReason(input, slo);
  if (joins !== null) out.push(joins);
  if (input.connections_disconnected > 0) {
    out.push(`${fmtInt(input.connections_disconnected)} connections disconnected`);
  }
  // Network and protocol errors are on the server's side of the wire too (refused
  // connections, resets, malformed frames); generator-side errno codes are the generator's.
  for (const cls of ['server', 'network', 'protocol'] as const) {
    const n = input.error_classes[cls] ?? 0;
    if (n > 0) out.push(`${fmtInt(n)} ${cls}-class error${n === 1 ? '' : 's'}`);
  }
  return out;
}

/** How a step whose server went away mid-step begins its reasons. */
export const SERVER_WENT_AWAY = 'the server went away';

/**
 * Whether a recorded step's own reasons (not its "also:" lines) say the server went away in it:
 * killed or crashed, which is no limit of the load it carried.
 */
export function serverWentAwayIn(step: { verdict_reasons?: readonly string[] }): boolean {
  // Steps a sweep plans from carry their verdict alone.
  return step.verdict_reasons?.some((r) => r.startsWith(SERVER_WENT_AWAY)) ?? false;
}

/**
 * Connections dropped without a close frame (1006: the TCP connection just ended, as when the
 * server process is killed) counted by their reason's words.
 */
const DROPPED_WITHOUT_CLOSE = /without a close frame \(1006\)/;

/**
 * "the server went away: …" when at least half the step's joined connections were dropped
 * without a close frame; null otherwise.
 */
export function wentAwayReason(input: VerdictInput): string | null {
  let dropped = 0;
  for (const [reason, n] of Object.entries(input.errors ?? {}))
    if (DROPPED_WITHOUT_CLOSE.test(reason)) dropped += n;
  const joined = input.connections_joined ?? input.connections_target ?? 0;
  if (dropped === 0 || input.connections_disconnected === 0 || dropped < joined / 2) return null;
  return `${SERVER_WENT_AWAY}: ${fmtInt(dropped)} of ${fmtInt(joined)} connections dropped without a close frame (1006)`;
}
