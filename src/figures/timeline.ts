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
import { OwnSeconds, type KeptSecond } from './own-seconds.js';
import { spreadLine } from './spread-line.js';
import {
  deliveredByKind,
  gaugesOf,
  gaugeTotals,
  secondPoint,
  type Gauges,
  type PointInputs,
  type SecondRecord,
} from './second-point.js';

export { deliveredByKind, type SecondRecord } from './second-point.js';

/**
 * How long a second waits for a process's line, in seconds behind the newest line seen: a process
 * whose event loop lags (a run past what the machine holds) sends its line seconds late.
 */
export const LINE_GRACE_S = 5;

/** A kept second's sliding means before figures/own-seconds sets them. */
const NO_MEANS = { sent: 0, delivered: 0 };

interface PendingSecond {
  lines: SecondStats[];
  /** Step and phase when the second's first line came in, not when it is written. */
  ctx: { step: number; phase: TimeseriesPoint['phase'] };
}

export class Timeline {
  private readonly pending = new Map<number, PendingSecond>();
  /** Lines that came in after their second was written: counted in the next second written. */
  private late: SecondStats[] = [];
  private readonly gauges = new Map<number, Gauges>();
  private newestT = -Infinity;
  private lastWrittenT = -Infinity;
  /** The seconds the step figures read: each line in its own second, late ones too. */
  private readonly own = new OwnSeconds((rec, carried) => this.remade(rec, carried));
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

  /** When the newest server sample was taken (ms since the epoch); null before the first. */
  get newestServerSampleMs(): number | null {
    return this.serverSamples[this.serverSamples.length - 1]?.t ?? null;
  }

  addServerSample(s: ResourceSample): void {
    this.serverSamples.push(s);
    if (this.serverSamples.length > 120) this.serverSamples.shift();
  }

  /**
   * Takes one process's line. Seconds are written in order, each once: when every process has
   * sent its line for it, or once it is LINE_GRACE_S behind the newest line. A line whose second
   * was already written is counted in the next one written (its point's `late_lines`), so every
   * line's counts reach the timeline once and no second is written twice. For the step figures
   * (`seconds`, `between`) it counts in its own second (figures/own-seconds). A line that covers
   * more than one second (its process's tick came late) is spread over them first.
   */
  add(s: SecondStats): void {
    for (const piece of spreadLine(s)) this.addOne(piece);
  }

  /** One line of one second (a line of several is spread first: figures/spread-line). */
  private addOne(s: SecondStats): void {
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
    this.gauges.set(s.worker, gaugesOf(s));
  }

  /** The newest gauges of every process without a line in `own`. */
  private carriedFor(own: readonly SecondStats[]): Map<number, Gauges> {
    const present = new Set(own.map((s) => s.worker));
    const out = new Map<number, Gauges>();
    for (const [worker, g] of this.gauges) if (!present.has(worker)) out.set(worker, g);
    return out;
  }

  /** The server sample closest to the end of second `t`. */
  private sampleAt(t: number): ResourceSample | null {
    const end = (t + 1) * 1000;
    return this.serverSamples.reduce<ResourceSample | null>((best, x) => {
      const d = Math.abs(x.t - end);
      return d <= 1000 && (!best || d < Math.abs(best.t - end)) ? x : best;
    }, null);
  }

  private finish(t: number): void {
    const pending = this.pending.get(t);
    if (!pending) return;
    this.pending.delete(t);
    this.lastWrittenT = t;
    const own = pending.lines;
    const late = this.late;
    this.late = [];
    const list = late.length > 0 ? [...own, ...late] : own;
    const server = this.sampleAt(t);
    const carried = this.carriedFor(own);
    const sent = sumOf(list, (s) => s.sent);
    const delivered = sumOf(list, (s) => s.received);
    const inputs: PointInputs = {
      t,
      ctx: pending.ctx,
      gauges: gaugeTotals(own, carried),
      server,
      vcpus: this.instance.vcpus,
      latency: percentilesOf(mergeEncoded(list.map((s) => s.histogram))),
      means: { sent: r1(this.sent60.push(sent)), delivered: r1(this.delivered60.push(delivered)) },
      lateLines: late.length,
    };
    const byKind = deliveredByKind(list);
    const rec: SecondRecord = {
      point: secondPoint(inputs, list),
      workers: list,
      server,
      deliveredPerS60sByKind: this.delivered60ByKind.map((m, ki) => r1(m.push(byKind[ki]))),
    };
    this.emit(rec);
    // Kept for the step's figures without the second's latency histogram: the step's latency
    // comes from the ledgers the processes hand over at collect, and a kept histogram was the
    // bulk of a second's record (a long run's coordinator grew by it). The
    // emitted record keeps it (live metrics, shards read it); the kept one is a copy, of the
    // second's own lines. A second written with late lines only has none of its own.
    if (own.length > 0) {
      const point =
        late.length > 0
          ? this.keptPoint({ t, ctx: pending.ctx, lines: own, carried, server, latency: null })
          : { ...rec.point };
      this.own.keep({ rec: { point, workers: stripped(own), server }, carried });
    }
    for (const s of late) this.own.late(s, () => this.keptAlone(s));
  }

  /**
   * A kept second's point, of its own lines (figures/own-seconds sets its sliding means); its
   * latency that of the lines' histograms unless given.
   */
  private keptPoint(x: {
    t: number;
    ctx: PointInputs['ctx'];
    lines: readonly SecondStats[];
    carried: ReadonlyMap<number, Gauges>;
    server: ResourceSample | null;
    latency: PointInputs['latency'] | null;
  }): TimeseriesPoint {
    const inputs: PointInputs = {
      t: x.t,
      ctx: x.ctx,
      gauges: gaugeTotals(x.lines, x.carried),
      server: x.server,
      vcpus: this.instance.vcpus,
      latency: x.latency ?? percentilesOf(mergeEncoded(x.lines.map((s) => s.histogram))),
      means: NO_MEANS,
      lateLines: 0,
    };
    return secondPoint(inputs, x.lines);
  }

  /** A late line's own second when none of it was kept (a second no other line had). */
  private keptAlone(s: SecondStats): KeptSecond {
    const carried = this.carriedFor([s]);
    const server = this.sampleAt(s.t);
    const at = { t: s.t, ctx: this.context(), carried, server, latency: null };
    const point = this.keptPoint({ ...at, lines: [s] });
    return { rec: { point, workers: stripped([s]), server }, carried };
  }

  /**
   * A kept second's point again, after a late line of it joined its lines (whose histograms it
   * no longer holds: its latency stays that of the lines it was written with).
   */
  private remade(rec: SecondRecord, carried: ReadonlyMap<number, Gauges>): TimeseriesPoint {
    const p = rec.point;
    return this.keptPoint({
      t: p.t,
      ctx: { step: p.step - 1, phase: p.phase },
      lines: rec.workers,
      carried,
      server: rec.server,
      latency: { p50: p.delivery_p50_ms, p95: p.delivery_p95_ms, p99: p.delivery_p99_ms },
    });
  }

  /**
   * The seconds the step figures read, oldest first: each process's line in its own second, a
   * late one too (figures/own-seconds); at most a step's (forgetUntil).
   */
  get seconds(): readonly SecondRecord[] {
    return this.own.seconds;
  }

  /**
   * Drops the seconds that end at or before `ms` (a finished step's, once its result is
   * built): what the timeline keeps is bounded by one step, not the run.
   */
  forgetUntil(ms: number): void {
    this.own.forgetUntil(ms);
  }

  /** Seconds whose whole span lies in [fromMs, toMs). */
  between(fromMs: number, toMs: number): SecondRecord[] {
    return this.own.seconds.filter(
      (r) => r.point.t * 1000 >= fromMs && (r.point.t + 1) * 1000 <= toMs,
    );
  }
}

/** Lines as a kept second holds them: without their latency histogram. */
function stripped(lines: readonly SecondStats[]): SecondStats[] {
  return lines.map((s) => ({ ...s, histogram: '' }));
}
