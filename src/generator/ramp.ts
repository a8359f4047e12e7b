/**
 * The join ramp of one generator process: opens its share of connections [fromConn, toConn)
 * on the open-model join schedule and says when the ramp is over — every first attempt
 * scheduled and answered (joined or failed), every Postgres Changes subscription confirmed.
 * Reconnects never hold the ramp back: only first attempts are outstanding.
 */
import { OpenSchedule } from './schedule.js';
import { runOpenLoop, type Pacer } from './pacer.js';

export interface RampStart {
  step: number;
  fromConn: number;
  toConn: number;
  startMs: number;
  joinRatePerS: number;
  /** This process holds connection i. */
  mine(i: number): boolean;
  /** Opens connection i, scheduled at dueMs, `lateMs` after it. */
  open(i: number, dueMs: number, lateMs: number): void;
  /** The process is stopping. */
  stopped(): boolean;
}

export class RampDriver {
  /** The step whose ramp is running or not yet reported done; -1 when none is. */
  private step = -1;
  private scheduling = false;
  /** First attempts (the ramp's joins) opened and not yet answered. */
  private outstanding = 0;

  constructor(
    private readonly pacer: Pacer,
    private readonly worker: {
      /** The step the process is in now. */
      currentStep(): number;
      /** Joined members whose Postgres Changes subscription is not confirmed yet. */
      waitingSubscriptions(): number;
      /** Reports the ramp of `step` done (once per ramp). */
      rampDone(step: number): void;
    },
  ) {}

  /** Starts a ramp; returns how many joins this process scheduled. */
  start(r: RampStart): number {
    const own: number[] = [];
    for (let i = r.fromConn; i < r.toConn; i++) if (r.mine(i)) own.push(i);
    if (own.length === 0) {
      this.step = -1;
      this.worker.rampDone(r.step);
      return 0;
    }
    this.step = r.step;
    this.scheduling = true;
    const schedule = new OpenSchedule(r.startMs, r.joinRatePerS);
    runOpenLoop(this.pacer, {
      total: own.length,
      dueOf: (n) => schedule.timeOf(own[n] - r.fromConn),
      fire: (n, dueMs, nowMs) => r.open(own[n], dueMs, nowMs - dueMs),
      cancelled: r.stopped,
      end: () => {
        this.scheduling = false;
        this.settle();
      },
    });
    return own.length;
  }

  /** A first attempt was opened. */
  attemptOpened(): void {
    this.outstanding++;
  }

  /** A first attempt was answered (joined, failed or closed before its reply). */
  attemptAnswered(): void {
    this.outstanding--;
  }

  /**
   * Reports the ramp done if nothing holds it back any more; call after anything that may have
   * released it.
   */
  settle(): void {
    const step = this.worker.currentStep();
    if (this.scheduling || this.step === -1 || this.step !== step) return;
    if (this.outstanding > 0 || this.worker.waitingSubscriptions() > 0) return;
    this.step = -1;
    this.worker.rampDone(step);
  }
}
