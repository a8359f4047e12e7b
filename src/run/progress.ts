/**
 * The live progress line on stderr: rewritten in place on a terminal, one line every few
 * seconds otherwise (CI logs stay readable). Its latency is the last second's p95 over every
 * receipt, named so: the final table shows first-receipt latency, which only the end of a
 * step can compute (the first receipt of a message across all processes). A limit of this
 * machine the second met (a generator process out of descriptors or ports, the server's memory
 * at its safe line of a memory cgroup tighter than the instance, the server at its open-file
 * limit while connections fail) comes right after the step, in its capacity row's words
 * (model/second-limit), and is printed at once.
 */
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import {
  secondLimitWords,
  StepFailing,
  type GeneratorOs,
  type ServerMemory,
} from '../model/second-limit.js';

const n = (v: number) => Math.round(v).toLocaleString('en-US');
const ms = (v: number | null) =>
  v === null ? '—' : v < 10 ? `${v.toFixed(1)} ms` : `${Math.round(v)} ms`;
const pct = (v: number | null) => (v === null ? '—' : `${Math.round(v)}%`);

/**
 * The phase and, when it lasts a second or more, how far into it ("steady 3/10s"). A phase
 * planned shorter (a search step's ramp of 100 connections at 500 joins/s: 0.2 s) shows its name
 * alone: "ramp 0/0s" would say it lasts nothing, while its joins still come in.
 */
function phaseClock(phase: string, elapsedS: number, lengthS: number | null): string {
  if (lengthS === null || Math.round(lengthS) < 1) return phase;
  return `${phase} ${Math.min(elapsedS, lengthS).toFixed(0)}/${lengthS.toFixed(0)}s`;
}

export class Progress {
  private lastPlainMs = 0;
  private dirty = false;
  /** The limit the previous second met, so a newly met one is printed at once. */
  private lastLimit: string | null = null;
  /** The connections failed or dropped in the step so far, for the server's open-file limit. */
  private readonly failing = new StepFailing();

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly enabled: boolean,
  ) {}

  update(
    p: TimeseriesPoint,
    // steps: how many the run has, or 0 when a search decides them as it goes.
    ctx: {
      steps: number;
      target: number;
      elapsedInPhaseS: number;
      phaseLengthS: number | null;
      /** rtcap's own processes' limits, to number a generator's limit the second met. */
      generatorOs?: GeneratorOs;
      /** The server's memory basis and safe line, to name its memory cgroup the second met. */
      serverMemory?: ServerMemory;
    },
  ): void {
    if (!this.enabled) return;
    const phase = phaseClock(p.phase, ctx.elapsedInPhaseS, ctx.phaseLengthS);
    const stepFailing = this.failing.add(p);
    const limit = secondLimitWords(p, {
      generatorOs: ctx.generatorOs,
      serverMemory: ctx.serverMemory,
      stepFailing,
    });
    const newLimit = limit !== null && limit !== this.lastLimit;
    this.lastLimit = limit;
    const line =
      `step ${p.step}${ctx.steps > 0 ? `/${ctx.steps}` : ''} ${phase} · ${limit ? `${limit} · ` : ''}joined ${n(p.joined)}/${n(ctx.target)} · ` +
      `sent ${n(p.sent_per_s)}/s · delivered ${n(p.delivered_per_s)}/s · every-receipt p95 ${ms(p.delivery_p95_ms)} · ` +
      `errors ${n(p.errors)} · server CPU ${pct(p.server_cpu_pct)} RSS ${p.server_rss_mb === null ? '—' : `${Math.round(p.server_rss_mb)} MB`} · ` +
      `gen CPU ${pct(p.generator_cpu_pct)} lag ${ms(p.generator_lag_p99_ms)}`;
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[2K${line.slice(0, (this.out.columns || 200) - 1)}`);
      this.dirty = true;
    } else if (newLimit || Date.now() - this.lastPlainMs >= 5000) {
      this.out.write(line + '\n');
      this.lastPlainMs = Date.now();
    }
  }

  /** Ends the in-place line so ordinary log lines start on a fresh line. */
  break(): void {
    if (this.dirty && this.out.isTTY) this.out.write('\n');
    this.dirty = false;
  }
}
