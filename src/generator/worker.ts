/**
 * One generator process: holds its shard of the connections (global index i where
 * i mod workers = this worker), opens them on the open-model join schedule, drives the
 * broadcast and presence schedules for the senders it holds, and keeps the delivery ledger.
 * It reports a line of stats every second and the step's ledger when asked.
 *
 * This class dispatches: the coordinator's messages go to the step lifecycle
 * (generator/step-lifecycle: begin, ramp, shrink, send, collect), each connection's events to
 * generator/connection-events (open, join, error, close, reconnect, deliveries), and its clocks
 * (generator/worker-timers) to both. Both are built when the init message arrives, from what it
 * says; the parts they share keep the state: connection-set (the connections and where each is
 * in its life), token-renewal (tokens and their renewal), the delivery and send ledgers
 * (measure/ledger), second-report (the per-second line), dial (how a connection reaches the
 * target).
 */
import type { Connection } from '../client/connection.js';
import { HealthMonitor } from '../measure/health.js';
import { ReceiveLedger } from '../measure/ledger.js';
import { SendLedger } from '../measure/send-ledger.js';
import { rssMb } from '../measure/process-rss.js';
import { ConnectionEvents } from './connection-events.js';
import { ConnectionSet } from './connection-set.js';
import { dialTargetOf } from './dial.js';
import type { FromWorker, ToWorker } from './ipc.js';
import { SecondClock, secondLine } from './second-report.js';
import { ownershipOf, WHOLE } from './segment.js';
import { StepLifecycle } from './step-lifecycle.js';
import { TokenRenewal } from './token-renewal.js';
import { startWorkerTimers } from './worker-timers.js';

type Init = Extract<ToWorker, { type: 'init' }>;

/** What a process is made of once its init message arrived. */
interface Parts {
  worker: number;
  set: ConnectionSet<Connection>;
  ledger: ReceiveLedger;
  sends: SendLedger;
  health: HealthMonitor;
  steps: StepLifecycle;
  connections: ConnectionEvents;
  renewal: TokenRenewal<Connection>;
}

export class GeneratorWorker {
  /** Null until the init message arrives. */
  private parts: Parts | null = null;
  private readonly seconds = new SecondClock();
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly post: (m: FromWorker) => void) {}

  handle(m: ToWorker): void {
    if (m.type === 'init') {
      this.init(m);
      return;
    }
    if (m.type === 'stop') {
      this.stop();
      return;
    }
    const p = this.parts;
    if (!p) throw new Error(`generator process: '${m.type}' arrived before 'init'`);
    switch (m.type) {
      case 'step':
        p.steps.define(m.index, m.spec);
        return;
      case 'ramp':
        p.steps.ramp(m.step, m.fromConn, m.toConn, m.startMs);
        return;
      case 'shrink':
        p.steps.shrink(m.step, m.toConn);
        return;
      case 'send':
        p.steps.send(m.step, m.startMs);
        return;
      case 'collect':
        this.post(p.steps.collect());
        return;
    }
  }

  private init(m: Init): void {
    const p = (this.parts = this.build(m));
    this.timers = startWorkerTimers(m.profile.target.heartbeat_interval, {
      stopped: () => this.stopped,
      reportSecond: (lateMs) => this.reportSecond(p, lateMs),
      heartbeat: (slot, slots) => p.set.heartbeat(slot, slots),
      maintain: (now) => {
        p.connections.maintain(now);
        p.steps.expireSends(now);
      },
    });
    // Ready once token minting is loaded: the ramp starts when every process is ready.
    const ready = () => this.post({ type: 'ready', worker: p.worker, rssMb: rssMb() });
    void p.renewal.prepare().then(ready);
  }

  /** The process's parts, wired to each other, for what `m` says. */
  private build(m: Init): Parts {
    const segment = m.segment ?? WHOLE;
    const { owner, owners } = ownershipOf(segment, m.workerIndex, m.workers);
    const stopped = () => this.stopped;
    const ledger = new ReceiveLedger();
    const sends = new SendLedger(5);
    const health = new HealthMonitor();
    // The set tells the ramp of answered first attempts and renewal of ended memberships; both
    // are built below, before any connection exists.
    const set: ConnectionSet<Connection> = new ConnectionSet<Connection>({
      attemptOpened: () => steps.ramps.attemptOpened(),
      attemptAnswered: () => steps.ramps.attemptAnswered(),
      membershipEnded: (c) => renewal.untrack(c),
    });
    const steps: StepLifecycle = new StepLifecycle({
      worker: m.workerIndex,
      segment,
      profile: m.profile,
      mine: (i) => i % owners === owner,
      set,
      ledger,
      sends,
      health,
      open: (i, dueMs) => connections.open(i, dueMs, 0),
      post: this.post,
      stopped,
    });
    const renewal = new TokenRenewal<Connection>(
      m.tokens,
      (i) => steps.plan?.userClaimsOf?.(i) ?? {},
    );
    const connections = new ConnectionEvents({
      profile: m.profile,
      dial: dialTargetOf(m),
      owners,
      set,
      ledger,
      renewal,
      steps,
      stepSends: steps.stepSends,
      ramps: steps.ramps,
      stopped,
    });
    return { worker: m.workerIndex, set, ledger, sends, health, steps, connections, renewal };
  }

  private reportSecond(p: Parts, lateMs: number): void {
    const receipts = p.ledger.takeSecond();
    const acks = p.steps.stepSends.acks;
    this.post(
      secondLine({
        worker: p.worker,
        span: this.seconds.span(Date.now()),
        open: p.set.openNow,
        joined: p.set.joinedNow,
        counted: p.steps.takeSecond(),
        sent: p.sends.sentThisSecond,
        acked: acks.takeSecond(),
        acksPending: acks.size,
        receipts,
        health: p.health.sample(lateMs),
      }),
    );
    p.sends.sentThisSecond = 0;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    const p = this.parts;
    if (!p) return;
    p.health.stop();
    p.set.closeAll('rtcap done');
  }
}
