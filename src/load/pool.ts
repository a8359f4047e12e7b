/**
 * The coordinator's side of the generator processes: forks them, shards work by connection
 * index, and turns their replies into promises. Each process has its own open-file limit,
 * which is why the generator is processes and not threads.
 */
import { fork, execFileSync, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { FromWorker, SecondStats, StepCollected, ToWorker } from '../generator/ipc.js';
import { distEntry } from '../util/paths.js';
import { SpawnFailed } from './spawn-failed.js';
import { testSpawnFault } from './test-spawn-fault.js';
import { addCounts } from '../util/counts.js';
import { joinFigures, type JoinFigures } from '../measure/join-figures.js';
import { sleep } from '../util/sleep.js';
import { sumOf } from '../util/sum.js';

/** How long a killed process of a failed start is waited for before the error is reported. */
const REAP_WAIT_MS = 5_000;

export interface PoolEvents {
  second: [SecondStats];
  fatal: [string];
}

/** What a ramp ended with over every process (WorkerPool.ramp). */
export interface RampDone {
  joined: number;
  failed: number;
  /** The ramp's errors by reason. */
  errors: Map<string, number>;
  /** The step's ramp joins by reply time, as its collect reports them (measure/join-figures). */
  joins: JoinFigures;
  /** Joins the step scheduled. */
  scheduledJoins: number;
}

/**
 * What the processes handed over at a step's collect: the answers of those that replied in time,
 * and the processes that did not (numbered from 1, with their pids). Nothing of a process that
 * did not answer is in `replies`, not even an answer that comes later.
 */
export interface Collection {
  replies: StepCollected[];
  unanswered: Array<{ process: number; pid: number }>;
}

/** Signals a terminal or a service manager sends to a whole process group. */
const GROUP_SIGNALS = new Set<NodeJS.Signals>(['SIGINT', 'SIGTERM', 'SIGHUP']);
/** How long a process ended by one of them waits for the coordinator's own interrupt. */
const GROUP_SIGNAL_GRACE_MS = 500;

export class WorkerPool extends EventEmitter<PoolEvents> {
  private readonly children: ChildProcess[] = [];
  private readonly waiters = new Map<
    string,
    { need: number; got: FromWorker[]; resolve: (v: FromWorker[]) => void }
  >();
  private exited = 0;
  /** Set while the pool kills its own processes after a failed start: their exits are expected. */
  private killing = false;
  /** The start's forks, awaited by stop(): no process is forked after the pool is stopped. */
  private spawning: Promise<void> | null = null;
  private stopRequested = false;
  /** Sum of the processes' RSS when they reported ready, before any connection (MiB). */
  idleRssMb: number | null = null;

  constructor(
    readonly size: number,
    private readonly cpus: string | null,
    /** V8 flags for every process (load/young-generation), before any in RTCAP_WORKER_EXEC_ARGV. */
    private readonly v8Args: readonly string[] = [],
    /**
     * argv prefix every process is launched through (an emulated link's `ip netns exec NS`,
     * src/link); it execs node in place, so the pid and the IPC channel stay the process's.
     */
    private readonly launcher: readonly string[] = [],
  ) {
    super();
  }

  async start(init: (worker: number) => Extract<ToWorker, { type: 'init' }>): Promise<void> {
    this.spawning = this.spawnAll();
    await this.spawning;
    if (this.stopRequested) return;
    const ready = this.expect<Extract<FromWorker, { type: 'ready' }>>('ready', -1);
    this.children.forEach((c, w) => c.send(init(w)));
    this.idleRssMb = sumOf(await ready, (r) => r.rssMb);
  }

  /** Forks the processes one after the other, until all are started or one cannot be. */
  private async spawnAll(): Promise<void> {
    const entry = distEntry('generator/worker-main.js');
    // A stop asked for meanwhile (an interrupt) ends the loop: stop() then stops those started.
    for (let w = 0; w < this.size && !this.stopRequested; w++) {
      try {
        this.children.push(await this.spawnOne(w, entry));
      } catch (e) {
        // No orphans: the processes already started are killed and reaped before the error.
        const stoppedPids = await this.killStarted();
        throw new SpawnFailed(w, this.size, e as NodeJS.ErrnoException, stoppedPids);
      }
    }
  }

  /** Forks process `w` and resolves once the system has started it (Node's 'spawn' event). */
  private async spawnOne(w: number, entry: string): Promise<ChildProcess> {
    // RTCAP_WORKER_EXEC_ARGV="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the generator
    // processes.
    const execArgv = [
      ...this.v8Args,
      ...(process.env.RTCAP_WORKER_EXEC_ARGV?.split(' ').filter(Boolean) ?? []),
    ];
    const execPath = this.launcher[0] ?? process.execPath;
    const fault = testSpawnFault(w + 1, execPath);
    if (fault) throw fault;
    const child = fork(entry, [], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      ...(this.launcher.length
        ? { execPath, execArgv: [...this.launcher.slice(1), process.execPath, ...execArgv] }
        : { execArgv }),
    });
    // A fork the system refused (EAGAIN, ENOMEM, EMFILE) comes as an 'error' instead of 'spawn'.
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('spawn', () => {
        child.off('error', reject);
        resolve();
      });
    });
    child.on('error', (e) => this.emit('fatal', `generator worker ${w} failed: ${e.message}`));
    child.on('message', (m: FromWorker) => this.onMessage(m));
    child.on('exit', (code, signal) => {
      this.exited++;
      if (this.killing || this.stopRequested) return;
      this.exitedUnasked(w, code, signal);
    });
    try {
      if (this.cpus && child.pid) pin(child.pid, this.cpus);
    } catch (e) {
      this.children.push(child);
      throw e;
    }
    return child;
  }

  /**
   * A process that ended before the pool stopped it took its connections and its part of the
   * step's figures with it: the run cannot go on, and must not wait for answers that will not
   * come (a ramp would wait out its whole deadline). A signal that ends a whole process group
   * (SIGINT, SIGTERM, SIGHUP at a terminal or from a service manager) reaches the coordinator
   * too, whose own handler ends the run as interrupted: that is given a moment to come first.
   */
  private exitedUnasked(w: number, code: number | null, signal: NodeJS.Signals | null): void {
    const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
    const why = `generator worker ${w} ${how} before the run asked it to stop`;
    if (signal && GROUP_SIGNALS.has(signal)) {
      setTimeout(() => {
        if (!this.stopRequested) this.emit('fatal', why);
      }, GROUP_SIGNAL_GRACE_MS).unref();
      return;
    }
    this.emit('fatal', why);
  }

  /** Kills every process started and waits until each is reaped; their pids. */
  private async killStarted(): Promise<number[]> {
    this.killing = true;
    const pids = this.pids;
    await Promise.all(
      this.children.map((c) =>
        c.exitCode !== null || c.signalCode !== null
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              // Bounded: a process SIGKILL cannot end at once (stuck in the kernel) is waited for
              // REAP_WAIT_MS at most.
              const timer = setTimeout(resolve, REAP_WAIT_MS);
              c.once('exit', () => {
                clearTimeout(timer);
                resolve();
              });
              c.kill('SIGKILL');
            }),
      ),
    );
    return pids;
  }

  get pids(): number[] {
    return this.children.map((c) => c.pid ?? 0);
  }

  private key(type: string, step: number): string {
    return `${type}:${step}`;
  }

  /** Resolves when every worker has replied with `type` for `step`. */
  expect<T extends FromWorker>(type: T['type'], step: number): Promise<T[]> {
    return new Promise((resolve) => {
      this.waiters.set(this.key(type, step), {
        need: this.size,
        got: [],
        resolve: resolve as (v: FromWorker[]) => void,
      });
    });
  }

  private onMessage(m: FromWorker): void {
    if (m.type === 'second') {
      this.emit('second', m);
      return;
    }
    if (m.type === 'fatal') {
      this.emit('fatal', m.message);
      return;
    }
    const step = 'step' in m ? m.step : -1;
    const w = this.waiters.get(this.key(m.type, step));
    if (!w) return;
    w.got.push(m);
    if (w.got.length >= w.need) {
      this.waiters.delete(this.key(m.type, step));
      w.resolve(w.got);
    }
  }

  broadcast(m: ToWorker): void {
    for (const c of this.children) if (c.connected) c.send(m);
  }

  /**
   * Opens connections [fromConn, toConn) on the join schedule; resolves with members joined,
   * failures and errors by reason, and the step's ramp joins over every process.
   */
  async ramp(step: number, fromConn: number, toConn: number, startMs: number): Promise<RampDone> {
    const done = this.expect<Extract<FromWorker, { type: 'rampDone' }>>('rampDone', step);
    this.broadcast({ type: 'ramp', step, fromConn, toConn, startMs });
    const replies = await done;
    const errors = new Map<string, number>();
    for (const r of replies) addCounts(errors, r.errors);
    return {
      joined: sumOf(replies, (r) => r.joined),
      failed: sumOf(replies, (r) => r.failed),
      errors,
      joins: joinFigures(replies),
      scheduledJoins: sumOf(replies, (r) => r.scheduledJoins),
    };
  }

  async send(step: number, startMs: number): Promise<void> {
    const done = this.expect('sendDone', step);
    this.broadcast({ type: 'send', step, startMs });
    await done;
  }

  async collect(step: number): Promise<StepCollected[]> {
    const done = this.expect<StepCollected>('collected', step);
    this.broadcast({ type: 'collect', step });
    return done;
  }

  /**
   * Collects the step, waiting at most `waitMs`: a slow process costs only its own answer, the
   * others' are kept (a step cut short keeps what they measured).
   */
  async collectWithin(step: number, waitMs: number): Promise<Collection> {
    const key = this.key('collected', step);
    const done = this.collect(step);
    let timer: NodeJS.Timeout | undefined;
    // A process that has exited cannot answer: once every one still running has, the wait is over.
    const livingAnswered = new Promise<null>((resolve) => {
      const deadline = Date.now() + waitMs;
      const check = () => {
        const got = new Set((this.waiters.get(key)?.got ?? []).map((r) => r.worker));
        const waiting = this.children.some(
          (c, w) => c.exitCode === null && c.signalCode === null && !got.has(w),
        );
        if (!waiting || Date.now() >= deadline) return resolve(null);
        timer = setTimeout(check, Math.min(50, Math.max(0, deadline - Date.now())));
      };
      check();
    });
    const all = await Promise.race([done, livingAnswered]);
    clearTimeout(timer);
    if (all) return { replies: all, unanswered: [] };
    // Out of time: what came so far is the collection; an answer after this finds no waiter.
    const got = (this.waiters.get(key)?.got ?? []) as StepCollected[];
    this.waiters.delete(key);
    const answered = new Set(got.map((r) => r.worker));
    const unanswered = this.children
      .map((c, w) => ({ process: w + 1, pid: c.pid ?? 0 }))
      .filter((p) => !answered.has(p.process - 1));
    return { replies: got, unanswered };
  }

  /** Asks workers to close their sockets and exit; kills those that do not within the grace. */
  async stop(graceMs = 3000): Promise<void> {
    this.stopRequested = true;
    await this.spawning?.catch(() => undefined);
    this.broadcast({ type: 'stop' });
    const deadline = Date.now() + graceMs;
    while (this.exited < this.children.length && Date.now() < deadline) await sleep(50);
    for (const c of this.children)
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    // Reaped before the run goes on: none is left behind as a zombie or a survivor.
    const reapBy = Date.now() + REAP_WAIT_MS;
    while (this.exited < this.children.length && Date.now() < reapBy) await sleep(20);
  }
}

/** Pins a process and all its threads to the given CPUs (`taskset -a -p -c`). */
export function pin(pid: number, cpus: string): void {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
  } catch (e) {
    throw new Error(
      `could not pin pid ${pid} to CPUs ${cpus} with taskset: ${(e as Error).message}`,
      { cause: e },
    );
  }
}
