/**
 * Joins measured, not configured. A step's join rate is what the server
 * answered: the ramp's joins (first attempts) counted by the time their ok reply arrived.
 * Reconnects are counted apart.
 */
import { r1 } from '../util/round.js';

interface CollectedJoins {
  joins?: {
    ramp: {
      joined: number;
      firstReplyMs: number | null;
      lastReplyMs: number | null;
      behindSchedule: number;
    };
    rejoins: number;
  };
}

export interface JoinFigures {
  /** First attempts of the step's ramp answered ok, over every process. */
  rampJoined: number;
  /** Epoch ms of the first and the last of those replies. */
  firstReplyMs: number | null;
  lastReplyMs: number | null;
  /** First attempts the generator opened more than OFFERED_GRACE_MS after their scheduled time. */
  behindSchedule: number;
  /** Reconnects that joined. */
  rejoins: number;
}

export function joinFigures(collected: readonly CollectedJoins[]): JoinFigures {
  const out: JoinFigures = {
    rampJoined: 0,
    firstReplyMs: null,
    lastReplyMs: null,
    behindSchedule: 0,
    rejoins: 0,
  };
  for (const c of collected) {
    if (!c.joins) continue;
    const r = c.joins.ramp;
    out.rampJoined += r.joined;
    out.behindSchedule += r.behindSchedule;
    out.rejoins += c.joins.rejoins;
    if (r.firstReplyMs !== null && (out.firstReplyMs === null || r.firstReplyMs < out.firstReplyMs))
      out.firstReplyMs = r.firstReplyMs;
    if (r.lastReplyMs !== null && (out.lastReplyMs === null || r.lastReplyMs > out.lastReplyMs))
      out.lastReplyMs = r.lastReplyMs;
  }
  return out;
}

/**
 * Joins per second of the ramp: N first-join replies are N − 1 intervals between the first
 * reply and the last, so the rate is (N − 1) ÷ (last − first reply). A server that keeps up
 * answers at the offered rate whatever its latency; one that cannot answers at its own rate.
 * Null with fewer than two replies or when they all came in the same instant.
 */
export function joinsPerS(
  j: Pick<JoinFigures, 'rampJoined' | 'firstReplyMs' | 'lastReplyMs'>,
): number | null {
  if (j.rampJoined < 2 || j.firstReplyMs === null || j.lastReplyMs === null) return null;
  const spanMs = j.lastReplyMs - j.firstReplyMs;
  if (spanMs <= 0) return null;
  return r1((j.rampJoined - 1) / (spanMs / 1000));
}

/**
 * Reconnects that joined, per second of the whole step (ramp start → drain end). Null when
 * the step does not reconnect (load.reconnect off) and none did.
 */
export function rejoinsPerS(
  rejoins: number,
  stepSpanMs: number,
  reconnects: boolean,
): number | null {
  if (rejoins === 0 && !reconnects) return null;
  return r1(rejoins / Math.max(0.001, stepSpanMs / 1000));
}

/**
 * Share of the ramp's joins the generator opened on schedule; null when the step scheduled none.
 */
export function joinOfferedRatio(scheduled: number, behindSchedule: number): number | null {
  return scheduled > 0 ? (scheduled - behindSchedule) / scheduled : null;
}

/**
 * Share of the step's connections that joined (target − failed or missing) ÷ target; null without a
 * target.
 */
export function joinSuccess(target: number, failedOrMissing: number): number | null {
  if (target <= 0) return null;
  return Math.max(0, target - failedOrMissing) / target;
}
