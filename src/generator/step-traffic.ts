/**
 * A step's send phase wired to one generator process: the traffic kinds its plan carries
 * (broadcasts, presence updates) as generator/traffic-driver's loops, each send made on the held
 * connection when it is a member (generator/step-sends) and recorded in the send ledger — its
 * actual time, or NaN when it could not be sent.
 */
import type { Connection } from '../client/connection.js';
import { nowMs } from '../measure/clock.js';
import type { SendLedger } from '../measure/send-ledger.js';
import type { StepPlan } from '../scenarios/types.js';
import type { ConnectionSet } from './connection-set.js';
import type { StepCounters } from './step-counters.js';
import type { StepSends } from './step-sends.js';
import type { TrafficRun, TrafficTag } from './traffic-driver.js';

export interface StepTrafficParts {
  plan: StepPlan;
  startMs: number;
  set: ConnectionSet<Connection>;
  stepSends: StepSends;
  sends: SendLedger;
  stats: StepCounters['sendStats'];
  /** This process holds connection i. */
  mine(i: number): boolean;
  /** The step the process is in when a send is made. */
  currentStep(): number;
  cancelled(): boolean;
  done(): void;
}

/** The run generator/traffic-driver makes of a step's plan on this process's connections. */
export function stepTrafficRun(p: StepTrafficParts): TrafficRun {
  const { plan, stepSends: sends } = p;
  const loops: Array<{ traffic: NonNullable<StepPlan['broadcasts']>; tag: TrafficTag }> = [];
  if (plan.broadcasts) loops.push({ traffic: plan.broadcasts, tag: 'broadcast' });
  if (plan.presence) loops.push({ traffic: plan.presence, tag: 'presence' });
  const { byIndex: conns, meta } = p.set;
  return {
    startMs: p.startMs,
    durationMs: plan.durationMs,
    loops,
    mine: p.mine,
    send: (tag, conn, stream, seq, dueMs) => {
      const c = conns.get(conn);
      const m = c && meta.get(c);
      // A sender dropped and not back yet (load.reconnect), or gone for good in an earlier step
      // (its record already reported and forgotten by the set): not sent, counted as such.
      const down =
        c !== undefined && c.member.joinedAtMs > 0 && (m === undefined || m.leftAtMs !== Infinity);
      if (down) p.stats.connectionDown++;
      const ok =
        c !== undefined &&
        m !== undefined &&
        !down &&
        c.member.joinedAtMs > 0 &&
        sends.send(c, m.topic, p.currentStep(), tag, stream, seq, dueMs);
      p.sends.record(stream, seq, dueMs, ok ? nowMs() : NaN);
      return ok;
    },
    stats: p.stats,
    cancelled: p.cancelled,
    done: p.done,
  };
}
