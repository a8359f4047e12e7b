/**
 * Checks, once a second, whether a step can still measure anything: an unreachable or
 * refusing target (nothing joins and attempts keep failing) and a server that dropped every
 * connection end the run with the reason.
 */
import { NO_CONNECTION_COULD_JOIN } from '../result/cut-short.js';
import { refusedByServer } from '../model/step-limit.js';
import type { SecondRecord } from '../figures/timeline.js';
import type { Phase } from './live-state.js';
import { GENERATOR_ERRNO } from '../model/verdict-generator.js';
import { SERVER_WENT_AWAY } from '../model/verdict-broken.js';

/** A drop without a close frame, as client/classify words it. */
const DROPPED_WITHOUT_CLOSE = /without a close frame \(1006\)/;

export interface StepHealthOptions {
  /**
   * Whether a ramp the server refused outright (every join failed, the most frequent reason in
   * the server's words) is a step's answer rather than a reason to stop: true in a search past
   * its first step, whose planner stops on it with the rejection quoted (sweep/plan).
   */
  refusalIsAStep?: () => boolean;
}

export class StepHealth {
  constructor(private readonly opts: StepHealthOptions = {}) {}

  private readonly errors = new Map<string, number>();
  private joinedPeak = 0;
  /**
   * Joined connections that went without rtcap closing them, this step (the workers' disconnects).
   */
  private disconnects = 0;
  /** The second since which every connection has been lost; null while some are joined. */
  private allLostSinceS: number | null = null;

  /** At the start of every step. */
  reset(): void {
    this.errors.clear();
    this.joinedPeak = 0;
    this.disconnects = 0;
    this.allLostSinceS = null;
  }

  /** Takes one second of the timeline; returns why the run must stop, or null. */
  /**
   * `rideOutMs`: how long a step whose connections were all lost waits for one to reconnect
   * (load.reconnect, generator/reconnect reconnectGiveUpMs); 0 ends the run at once.
   */
  check(rec: SecondRecord, phase: Phase, targetConnections: number, rideOutMs = 0): string | null {
    for (const wkr of rec.workers) {
      for (const [k, v] of Object.entries(wkr.errorReasons))
        this.errors.set(k, (this.errors.get(k) ?? 0) + v);
      this.disconnects += wkr.disconnects ?? 0;
    }
    this.joinedPeak = Math.max(this.joinedPeak, rec.point.joined);
    if (
      phase === 'ramp' &&
      rec.point.joined === 0 &&
      this.joinedPeak === 0 &&
      this.targetErrors() >= Math.min(20, targetConnections) &&
      !(this.opts.refusalIsAStep?.() && refusedByServer(this.errors))
    ) {
      return `${NO_CONNECTION_COULD_JOIN}: ${topError(this.errors)}`;
    }
    // Lost, not closed: none open and some dropped by the other side. Connections rtcap closed
    // itself (a new topology's reset, a step's shrink) are no loss, whatever second they fall in.
    const allLost =
      (phase === 'steady' || phase === 'drain') &&
      this.joinedPeak > 0 &&
      this.disconnects > 0 &&
      rec.point.joined === 0 &&
      rec.point.connections_open === 0;
    if (!allLost) {
      this.allLostSinceS = null;
      return null;
    }
    const lost = `all ${this.joinedPeak.toLocaleString('en-US')} connections were lost`;
    // With load.reconnect a restarting server is ridden out: the run ends only once the
    // connections had the time to use up their attempts and none came back.
    if (rideOutMs <= 0)
      return this.wentAway()
        ? `${SERVER_WENT_AWAY}: ${lost} without a close frame (1006)`
        : `${lost}: ${topError(this.errors)}`;
    this.allLostSinceS ??= rec.point.t;
    if ((rec.point.t - this.allLostSinceS) * 1000 < rideOutMs) return null;
    const s = Math.round(rideOutMs / 1000).toLocaleString('en-US');
    return `${lost} and none reconnected within ${s} s (load.reconnect): ${topError(this.errors)}`;
  }

  /**
   * Whether the step's connections were lost the way a killed server loses them: most of the
   * drops without a close frame (1006: the TCP connection just ended; client/classify).
   */
  private wentAway(): boolean {
    let dropped = 0;
    for (const [reason, n] of this.errors) if (DROPPED_WITHOUT_CLOSE.test(reason)) dropped += n;
    return dropped > 0 && dropped >= this.joinedPeak / 2;
  }

  /**
   * Errors that say the target refuses or cannot be reached. The generator's own OS limits
   * (EMFILE past its open-file limit, no ephemeral port left) are not: a process that opened
   * more sockets than it may fails the extra ones at once, while the ones it could open are
   * still in their handshakes; the step goes on and counts them.
   */
  private targetErrors(): number {
    let n = 0;
    for (const [reason, count] of this.errors) if (!GENERATOR_ERRNO.test(reason)) n += count;
    return n;
  }
}

/** The most frequent error reason, with its count and the total. */
export function topError(errors: Map<string, number>): string {
  let best: [string, number] | null = null;
  let total = 0;
  for (const e of errors) {
    total += e[1];
    if (!best || e[1] > best[1]) best = e;
  }
  if (!best) return 'no error reported';
  return `${best[0]} (×${best[1]}${total > best[1] ? ` of ${total} errors` : ''})`;
}
