/**
 * What a channel's control frames mean for its membership (the slow path: frames without
 * rtcap's stamp). A phx_error or phx_close of the current join ends the membership; one of an
 * older join is stale and ignored; a system message with status "error" is a channel failure;
 * everything else (system ok, presence, postgres_changes, foreign events) is passed on.
 * A reply, matched by ref to what awaited it (client/awaited-replies), settles that: a join's
 * joins or fails, a push's is its ack, a leave's ends the membership (settleReply).
 */
import { EV } from '../protocol/constants.js';
import type { Frame } from '../protocol/frame-types.js';
import { nowMs } from '../measure/clock.js';
import { classifyJoinError, replyReason, type ClassifiedError } from './classify.js';
import type { ConnectionHooksOf } from './connection-hooks.js';

/** A topic's current join: the join_ref it was sent with, and whether its ok reply came. */
export interface JoinState {
  joinRef: string;
  joined: boolean;
}

/** What a reply is awaited for, since `sentAtMs`; a push's `tag` and `ackId` are its sender's. */
export type Pending =
  | { kind: 'join'; topic: string; sentAtMs: number }
  | { kind: 'push'; topic: string; sentAtMs: number; tag?: string; ackId?: number }
  | { kind: 'leave'; topic: string; sentAtMs: number };

/** A frame to hand on to the connection's owner unchanged. */
export const PASS_ON = 'pass-on';
/** A frame that says nothing about a current membership. */
export const IGNORE = 'ignore';

/**
 * The channel failure `f` reports, with the topic's join deleted from `joins`; or PASS_ON /
 * IGNORE. `f` is not a reply.
 */
export function channelFailure(
  f: Frame,
  joins: Map<string, JoinState>,
): ClassifiedError | typeof PASS_ON | typeof IGNORE {
  switch (f.event) {
    case EV.error:
    case EV.close: {
      const j = joins.get(f.topic);
      // A phx_close we asked for (leave) is expected: the leave's reply already deleted the join.
      if (!j || !isCurrentJoin(f, j.joinRef)) return IGNORE;
      joins.delete(f.topic);
      const reason =
        f.event === EV.error
          ? `phx_error: ${replyReason(f.payload)}`
          : 'phx_close: channel closed by server';
      return { class: 'server', reason };
    }
    case EV.system: {
      const p = f.payload as { status?: string; message?: unknown; extension?: string } | null;
      if (!p || p.status !== 'error') return PASS_ON;
      const msg = typeof p.message === 'string' ? p.message : JSON.stringify(p.message);
      return { class: 'server', reason: `system error: ${msg}` };
    }
    default:
      return PASS_ON;
  }
}

/**
 * phx_close and phx_error carry the join's ref (v2: `[join_ref, join_ref, ...]`; v1 has no
 * join_ref field, so the ref stands for it, docs/PROTOCOL.md §2.5). One for an older join is stale.
 */
function isCurrentJoin(f: Frame, joinRef: string): boolean {
  const ref = f.joinRef ?? f.ref;
  return ref === null || ref === joinRef;
}

/**
 * Settles what awaited the reply `f` (`p`, taken from connection `c`'s awaited replies): a join's
 * ok marks the topic joined (onJoined), its error ends the join (onError); a push's reply is its
 * ack (onAck); a leave's deletes the join. A join superseded by a later one is left alone.
 */
export function settleReply<C>(
  c: C,
  hooks: ConnectionHooksOf<C>,
  joins: Map<string, JoinState>,
  p: Pending,
  f: Frame,
): void {
  const payload = (f.payload ?? {}) as { status?: string; response?: unknown };
  const ok = payload.status === 'ok';
  const latencyMs = nowMs() - p.sentAtMs;
  switch (p.kind) {
    case 'join': {
      const j = joins.get(p.topic);
      if (!j || j.joinRef !== f.ref) return; // superseded join
      if (ok) {
        j.joined = true;
        hooks.onJoined(c, p.topic, payload.response, latencyMs);
      } else {
        joins.delete(p.topic);
        hooks.onError(c, classifyJoinError(payload.response), 'join');
      }
      return;
    }
    case 'push': {
      const reason = ok ? null : replyReason(payload.response);
      hooks.onAck(c, ok, reason, latencyMs, p.tag, p.ackId);
      return;
    }
    case 'leave':
      joins.delete(p.topic);
      return;
  }
}
