/**
 * The per-second timeline: merges every generator process's line for a second with the
 * server sample of that second into one TimeseriesPoint (timeseries.ndjson), and keeps the
 * seconds for step figures (rates over the steady window, generator health, server usage).
 */
import { mergeEncoded, percentilesOf } from '../measure/histogram.js';
import { SlidingMean } from '../measure/sliding.js';
import type { SecondStats } from '../generator/ipc.js';
import type { ResourceSample } from '../monitor/types.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { TRAFFIC_KINDS } from '../scenarios/types.js';
import { r1 } from '../util/round.js';
import { sumOf } from '../util/sum.js';
import { GENERATOR_ERRNO } from '../model/verdict-generator.js';

export interface SecondRecord {
  point: TimeseriesPoint;
  workers: SecondStats[];
  server: ResourceSample | null;
  /**
   * The 60 s sliding mean of deliveries per second of each traffic kind (TRAFFIC_KINDS order), as
   * `point.delivered_per_s_60s` is of all.
   */
  deliveredPerS60sByKind?: number[];
}

/**
 * One second's deliveries of each kind over every process (a line without the split counts all its
 * deliveries for every kind).
 */
export function deliveredByKind(list: readonly SecondStats[]): number[] {
  return TRAFFIC_KINDS.map((_, ki) =>
    sumOf(list, (w) => (w.receivedByKind ? (w.receivedByKind[ki] ?? 0) : w.received)),
  );
}

/**
 * The second's connections that failed on an OS limit of a generator process, by errno (its
 * error reasons name it: client/classify), as the point's `generator_os_errors`; nothing when none.
 */
export function osErrorsField(list: readonly SecondStats[]): {
  generator_os_errors?: Record<string, number>;
} {
  const out: Record<string, number> = {};
  for (const w of list) {
    for (const [reason, n] of Object.entries(w.errorReasons ?? {})) {
      const m = GENERATOR_ERRNO.exec(reason);
      if (m && n > 0) out[m[1]] = (out[m[1]] ?? 0) + n;
    }
  }
  return Object.keys(out).length ? { generator_os_errors: out } : {};
}

/**
 * How long a second waits for a process's line, in seconds behind the newest line seen: a process
 * whose event loop lags (a run past what the machine holds) sends its line seconds late.
 */
export const LINE_GRACE_S = 5;

interface PendingSecond {
  lines: SecondStats[];
  /** Step and phase when the second's first line came in, not when it is written. */
  ctx: { step: number; phase: TimeseriesPoint['phase'] };
}

/** The gauges of a process's newest line: what a second it has no line in counts for it. */
interface Gauges {
  t: number;
  open: number;
  joined: number;
  acksPending: number;
}

export class Timeline {
  private readonly pending = new Map<number, PendingSecond>();
  /** Lines that came in after their second was written: counted in the next second written. */
  private late: SecondStats[] = [];
  private readonly gauges = new Map<number, Gauges>();
  private newestT = -Infinity;
  private lastWrittenT = -Infinity;
  readonly seconds: SecondRecord[] = [];
  private readonly sent60 = new SlidingMean(60);
  private readonly delivered60 = new SlidingMean(60);
  private readonly delivered60ByKind = TRAFFIC_KINDS.map(() => new SlidingMean(60));
  private serverSamples: ResourceSample[] = [];

  constructor(
    private readonly workers: number,
    private readonly context: () => { step: number; phase: TimeseriesPoint['phase'] },
    private readonly instance: { vcpus: number },
    private readonly emit: (r: SecondRecord) => void,
  ) {}

  addServerSample(s: ResourceSample): void {
    this.serverSamples.push(s);
    if (this.serverSamples.length > 120) this.serverSamples.shift();
  }

  /**
   * Takes one process's line. Seconds are written in order, each once: when every process has
   * sent its line for it, or once it is LINE_GRACE_S behind the newest line. A line whose second
   * was already written is counted in the next one written (its point's `late_lines`), so every
   * line's counts reach the timeline once and no second is written twice.
   */
  add(s: SecondStats): void {
    this.noteGauges(s);
    if (s.t > this.newestT) this.newestT = s.t;
    if (s.t <= this.lastWrittenT) this.late.push(s);
    else {
      let p = this.pending.get(s.t);
      if (!p) this.pending.set(s.t, (p = { lines: [], ctx: this.context() }));
      p.lines.push(s);
    }
    this.writeReady();
  }

  /** Emits whatever is pending (end of run). */
  flush(): void {
    for (const t of [...this.pending.keys()].sort((a, b) => a - b)) this.finish(t);
    // Late lines after the last second: a second of their own after it.
    if (this.late.length > 0) {
      this.pending.set(this.lastWrittenT + 1, { lines: [], ctx: this.context() });
      this.finish(this.lastWrittenT + 1);
    }
  }

  private writeReady(): void {
    for (;;) {
      const t = this.oldestPending();
      if (t === null) return;
      const waiting = this.pending.get(t)!.lines.length < this.workers;
      if (waiting && t >= this.newestT - LINE_GRACE_S) return;
      this.finish(t);
    }
  }

  private oldestPending(): number | null {
    let oldest: number | null = null;
    for (const t of this.pending.keys()) if (oldest === null || t < oldest) oldest = t;
    return oldest;
  }

  private noteGauges(s: SecondStats): void {
    const g = this.gauges.get(s.worker);
    if (g && g.t > s.t) return;
    this.gauges.set(s.worker, {
      t: s.t,
      open: s.open,
      joined: s.joined,
      acksPending: s.acksPending ?? 0,
    });
  }

  /**
   * A gauge of the second (open, joined, acks pending): each process's own line of it, or, for a
   * process without one (late or skipped), its newest line's.
   */
  private gaugeSum(own: readonly SecondStats[], f: (g: Gauges) => number): number {
    const present = new Set<number>();
    let total = 0;
    for (const s of own) {
      present.add(s.worker);
      total += f({ t: s.t, open: s.open, joined: s.joined, acksPending: s.acksPending ?? 0 });
    }
    for (const [worker, g] of this.gauges) if (!present.has(worker)) total += f(g);
    return total;
  }

  private finish(t: number): void {
    const pending = this.pending.get(t);
    if (!pending) return;
    this.pending.delete(t);
    this.lastWrittenT = t;
    const own = pending.lines;
    const lateLines = this.late.length;
    const list = lateLines > 0 ? [...own, ...this.late] : own;
    this.late = [];
    const sum = (f: (s: SecondStats) => number) => sumOf(list, f);
    const p = percentilesOf(mergeEncoded(list.map((s) => s.histogram)));
    // The server sample closest to the end of this second.
    const server = this.serverSamples.reduce<ResourceSample | null>((best, x) => {
      const d = Math.abs(x.t - (t + 1) * 1000);
      return d <= 1000 && (!best || d < Math.abs(best.t - (t + 1) * 1000)) ? x : best;
    }, null);
    const ctx = pending.ctx;
    const sent = sum((s) => s.sent);
    const delivered = sum((s) => s.received);
    const point: TimeseriesPoint = {
      t,
      step: ctx.step + 1,
      phase: ctx.phase,
      connections_open: this.gaugeSum(own, (g) => g.open),
      joined: this.gaugeSum(own, (g) => g.joined),
      joins_per_s: sum((s) => s.joins),
      sent_per_s: sent,
      acked_per_s: sum((s) => s.acked ?? 0),
      acks_pending: this.gaugeSum(own, (g) => g.acksPending),
      delivered_per_s: delivered,
      sent_per_s_60s: r1(this.sent60.push(sent)),
      delivered_per_s_60s: r1(this.delivered60.push(delivered)),
      delivery_p50_ms: p.p50,
      delivery_p95_ms: p.p95,
      delivery_p99_ms: p.p99,
      errors: sum((s) => s.errors),
      disconnects: sum((s) => s.disconnects),
      server_cpu_pct:
        server?.cpuCores != null ? r1((server.cpuCores / this.instance.vcpus) * 100) : null,
      server_rss_mb: server?.rssMb != null ? r1(server.rssMb) : null,
      ...(server?.openFiles
        ? { server_open_files: { open: server.openFiles.open, limit: server.openFiles.limit } }
        : {}),
      ...osErrorsField(list),
      generator_cpu_pct: r1(Math.max(...list.map((s) => s.health.cpuPct))),
      generator_lag_p99_ms: r1(Math.max(...list.map((s) => s.health.lagP99Ms))),
      ...(lateLines > 0 ? { late_lines: lateLines } : {}),
    };
    const byKind = deliveredByKind(list);
    const rec = {
      point,
      workers: list,
      server,
      deliveredPerS60sByKind: this.delivered60ByKind.map((m, ki) => r1(m.push(byKind[ki]))),
    };
    this.emit(rec);
    // Kept for the step's figures without the second's latency histogram: the step's latency
    // comes from the ledgers the processes hand over at collect, and a kept histogram was the
    // bulk of a second's record (a long run's coordinator grew by it). The
    // emitted record keeps it (live metrics, shards read it); the kept one is a copy.
    this.seconds.push({ ...rec, workers: list.map((s) => ({ ...s, histogram: '' })) });
  }

  /**
   * Drops the seconds that end at or before `ms` (a finished step's, once its result is
   * built): what the timeline keeps is bounded by one step, not the run.
   */
  forgetUntil(ms: number): void {
    const keepFrom = this.seconds.findIndex((r) => (r.point.t + 1) * 1000 > ms);
    this.seconds.splice(0, keepFrom < 0 ? this.seconds.length : keepFrom);
  }

  /** Seconds whose whole span lies in [fromMs, toMs). */
  between(fromMs: number, toMs: number): SecondRecord[] {
    return this.seconds.filter((r) => r.point.t * 1000 >= fromMs && (r.point.t + 1) * 1000 <= toMs);
  }
}
