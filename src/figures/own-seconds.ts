/**
 * The seconds the step figures read, each with the lines of its own second (docs/FIGURES.md
 * "Clocks and windows"). The live timeline writes a second once and counts a line that comes
 * after it in the next second written (`late_lines` in timeseries.ndjson); here that line joins
 * its own second, since its deliveries were received then, and the 60 s sliding means from that
 * second on are made again. `rtcap merge` replays a shard's lines in order of their second, so
 * none is late there: the same lines give the same step figures either way.
 */
import type { SecondStats } from '../generator/ipc.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { TRAFFIC_KINDS } from '../scenarios/types.js';
import { r1 } from '../util/round.js';
import { sumOf } from '../util/sum.js';
import { deliveredByKind, type Gauges, type SecondRecord } from './second-point.js';

/** The sliding means' window, in seconds written (as measure/sliding's SlidingMean counts). */
const WINDOW_S = 60;

/** A second's own counts that the sliding means are taken of. */
interface Counts {
  t: number;
  sent: number;
  delivered: number;
  byKind: number[];
}

function countsOf(rec: SecondRecord): Counts {
  return {
    t: rec.point.t,
    sent: rec.point.sent_per_s,
    delivered: rec.point.delivered_per_s,
    byKind: deliveredByKind(rec.workers),
  };
}

/** A kept second: its record and the gauges it carried for processes that had no line of it. */
export interface KeptSecond {
  rec: SecondRecord;
  carried: Map<number, Gauges>;
}

export class OwnSeconds {
  /** Oldest first; at most a step's (forgetUntil). */
  readonly seconds: SecondRecord[] = [];
  private readonly carried: Array<Map<number, Gauges>> = [];
  /** The kept seconds' counts after those of up to WINDOW_S − 1 forgotten ones. */
  private readonly counts: Counts[] = [];
  private forgottenUntilMs = -Infinity;

  /**
   * @param remake the point of a kept second from its lines and carried gauges (its latency
   *   percentiles stay those of the lines it was written with: no step figure reads them, the
   *   step's latency comes from the processes' ledgers)
   */
  constructor(
    private readonly remake: (
      rec: SecondRecord,
      carried: ReadonlyMap<number, Gauges>,
    ) => TimeseriesPoint,
  ) {}

  /** A second as written, with its own lines only (histograms left out). */
  keep(k: KeptSecond): void {
    this.seconds.push(k.rec);
    this.carried.push(k.carried);
    this.counts.push(countsOf(k.rec));
    this.meansFrom(this.seconds.length - 1);
  }

  /**
   * A line that came after its second was written: it joins that second, or, when none of that
   * second was kept, a second of its own made by `fresh`. A line of a second already forgotten
   * (its step's figures were built) is left to the live timeline.
   */
  late(s: SecondStats, fresh: () => KeptSecond): void {
    if ((s.t + 1) * 1000 <= this.forgottenUntilMs) return;
    let i = this.seconds.findIndex((r) => r.point.t >= s.t);
    if (i < 0) i = this.seconds.length;
    const at = this.seconds[i];
    const c = this.counts.length - this.seconds.length + i;
    if (at?.point.t === s.t) {
      at.workers.push({ ...s, histogram: '' });
      this.carried[i].delete(s.worker);
      at.point = this.remake(at, this.carried[i]);
      this.counts[c] = countsOf(at);
    } else {
      const k = fresh();
      this.seconds.splice(i, 0, k.rec);
      this.carried.splice(i, 0, k.carried);
      this.counts.splice(c, 0, countsOf(k.rec));
    }
    this.meansFrom(i);
  }

  /** The 60 s sliding means of the kept seconds from index `from` on. */
  private meansFrom(from: number): void {
    const offset = this.counts.length - this.seconds.length;
    for (let i = from; i < this.seconds.length; i++) {
      const c = offset + i;
      const window = this.counts.slice(Math.max(0, c - WINDOW_S + 1), c + 1);
      const mean = (f: (x: Counts) => number) => r1(sumOf(window, f) / window.length);
      const rec = this.seconds[i];
      rec.point.sent_per_s_60s = mean((x) => x.sent);
      rec.point.delivered_per_s_60s = mean((x) => x.delivered);
      rec.deliveredPerS60sByKind = TRAFFIC_KINDS.map((_, ki) => mean((x) => x.byKind[ki]));
    }
  }

  /** Drops the seconds that end at or before `ms`, keeping the counts the next means need. */
  forgetUntil(ms: number): void {
    const keepFrom = this.seconds.findIndex((r) => (r.point.t + 1) * 1000 > ms);
    const n = keepFrom < 0 ? this.seconds.length : keepFrom;
    this.seconds.splice(0, n);
    this.carried.splice(0, n);
    this.forgottenUntilMs = Math.max(this.forgottenUntilMs, ms);
    const beyond = this.counts.length - this.seconds.length - (WINDOW_S - 1);
    if (beyond > 0) this.counts.splice(0, beyond);
  }
}
