/**
 * The send phase of one generator process: runs each traffic kind's open-model schedule
 * (broadcasts, presence updates) for the senders this process holds and says when all are over.
 * Never skips a send silently: a process behind schedule sends late (counted by the send
 * ledger), and only past a whole extra window does it give up and count the rest as unsent.
 */
import type { ConnectionTraffic } from '../scenarios/types.js';
import { OpenSchedule } from './schedule.js';
import { runOpenLoop, type Pacer } from './pacer.js';
import { testSendCost } from './test-send-cost.js';

export type TrafficTag = 'broadcast' | 'presence';

export interface TrafficRun {
  startMs: number;
  /** The step's steady window; the give-up time is two of them (plus a second) after the start. */
  durationMs: number;
  loops: Array<{ traffic: ConnectionTraffic; tag: TrafficTag }>;
  /** This process holds connection i. */
  mine(conn: number): boolean;
  /**
   * Sends message (stream, seq) of `tag` from connection `conn`; false when it could not be sent.
   */
  send(tag: TrafficTag, conn: number, stream: number, seq: number, dueMs: number): boolean;
  /** Counts of the step this run belongs to. */
  stats: { scheduled: number; unsent: number };
  /** The process is stopping or the step is over. */
  cancelled(): boolean;
  /** Every loop ended (sent all or gave up). Not called when cancelled. */
  done(): void;
}

/** Gives up two steady windows plus a second after the start. */
export function giveUpAtMs(startMs: number, durationMs: number): number {
  return startMs + 2 * durationMs + 1000;
}

export function runTraffic(pacer: Pacer, run: TrafficRun): void {
  const loops = run.loops.filter((l) => l.traffic.count > 0);
  if (loops.length === 0) {
    run.done();
    return;
  }
  let running = loops.length;
  for (const { traffic, tag } of loops) {
    const schedule = new OpenSchedule(run.startMs, traffic.ratePerS);
    runOpenLoop(pacer, {
      total: traffic.count,
      dueOf: (k) => schedule.timeOf(k),
      fire: (k, dueMs) => {
        const s = traffic.senderOf(k);
        if (!run.mine(s.conn)) return;
        run.stats.scheduled++;
        testSendCost();
        run.send(tag, s.conn, s.stream, s.seq, dueMs);
      },
      cancelled: run.cancelled,
      giveUpAtMs: giveUpAtMs(run.startMs, run.durationMs),
      end: (fired) => {
        for (let k = fired; k < traffic.count; k++) {
          if (!run.mine(traffic.senderOf(k).conn)) continue;
          run.stats.scheduled++;
          run.stats.unsent++;
        }
        if (--running === 0) run.done();
      },
    });
  }
}
