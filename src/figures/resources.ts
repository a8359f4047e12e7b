/**
 * Server, database and generator resources over the steady window (StepResult.server, .database,
 * .generator).
 */
import { isSpreadPiece } from './spread-line.js';
import type { SecondStats } from '../generator/ipc.js';
import type { ResourceSample } from '../monitor/types.js';
import type { ServerBasis } from '../monitor/server-basis.js';
import type { StepResult } from '../result/result.js';
import type { SecondRecord } from './timeline.js';
import { r1, r3 } from '../util/round.js';
import { sumOf } from '../util/sum.js';
import { max, mean } from './stats.js';
import type { StepWindow } from './window.js';

/** Server samples taken in the steady window (a sample at t covers the second before t). */
export function samplesInWindow(
  samples: readonly ResourceSample[],
  w: StepWindow,
): ResourceSample[] {
  return samples.filter((s) => s.t > w.steadyStart && s.t <= w.steadyEnd + 1000);
}

const present = (xs: ReadonlyArray<number | null>) => xs.filter((v): v is number => v !== null);

/**
 * CPU % of the basis's vCPUs and memory % of its memory (what the server can use), from the
 * samples' means.
 */
export function serverFigures(
  samples: readonly ResourceSample[],
  instance: ServerBasis,
  source: string | null,
): StepResult['server'] {
  const cpuCores = present(samples.map((s) => s.cpuCores));
  const rss = present(samples.map((s) => s.rssMb));
  const cpuMean = mean(cpuCores);
  const rssMean = mean(rss);
  const cpuMax = max(cpuCores);
  const rssMax = max(rss);
  return {
    cpu_pct: cpuMean === null ? null : r1((cpuMean / instance.vcpus) * 100),
    cpu_pct_max: cpuMax === null ? null : r1((cpuMax / instance.vcpus) * 100),
    mem_pct: rssMean === null ? null : r1((rssMean / instance.memory_mb) * 100),
    rss_mb: rssMean === null ? null : r1(rssMean),
    rss_mb_max: rssMax === null ? null : r1(rssMax),
    source: cpuCores.length || rss.length ? source : null,
    basis: instance,
  };
}

/**
 * The server process nearest its open-file limit over the whole step, ramp to drain (a server
 * out of files fails the ramp's connects): the most files open at any sample, with the limit
 * of that sample's process. Null when no sample read the server's fd table.
 */
export function openFilesFigure(
  samples: readonly ResourceSample[],
  w: StepWindow,
): NonNullable<StepResult['server']['open_files']> | null {
  let best: NonNullable<ResourceSample['openFiles']> | null = null;
  for (const s of samples) {
    if (s.t <= w.rampStart || s.t > w.drainEnd + 1000 || !s.openFiles) continue;
    const o = s.openFiles;
    const fill = (x: typeof o) => (x.limit ? x.open / x.limit : 0);
    if (!best || fill(o) > fill(best) || (fill(o) === fill(best) && o.open > best.open)) best = o;
  }
  return best && { max: best.open, limit: best.limit, pid: best.pid };
}

/** `{ open_files }` for StepResult.server when the server's fd table was read, else nothing. */
export function openFilesField(
  samples: readonly ResourceSample[],
  w: StepWindow,
): Pick<StepResult['server'], 'open_files'> {
  const o = openFilesFigure(samples, w);
  return o ? { open_files: o } : {};
}

/**
 * The server's memory per joined connection and each process's share: from the steady window's
 * sample with the highest RSS (summed over the server's processes), less the server's RSS at its
 * first sample (ready, before any connection), over the connections joined at the start of the
 * steady window. Nothing when the server was not sampled from /proc.
 */
export function serverMemoryFields(
  samples: readonly ResourceSample[],
  idleRssMb: number | null,
  joined: number,
): Pick<StepResult['server'], 'rss_per_connection_kb' | 'rss_mb_by_process'> {
  let peak: ResourceSample | null = null;
  for (const s of samples)
    if (s.rssMb !== null && (peak === null || s.rssMb > peak.rssMb!)) peak = s;
  if (!peak?.processes) return {};
  const perConnKb = rssPerConnectionKb(peak.rssMb, idleRssMb, joined);
  return {
    rss_per_connection_kb: perConnKb === null ? null : r1(perConnKb),
    rss_mb_by_process: peak.processes.map((p) => ({ pid: p.pid, rss_mb: r1(p.rssMb) })),
  };
}

/** The built-in server's database (CPU % of one core), null when it was not sampled. */
export function databaseFigures(samples: readonly ResourceSample[]): StepResult['database'] {
  const dbCpu = mean(present(samples.map((s) => s.dbCpuCores)));
  const dbRss = mean(present(samples.map((s) => s.dbRssMb)));
  if (dbCpu === null && dbRss === null) return null;
  return {
    cpu_pct: dbCpu === null ? null : r1(dbCpu * 100),
    rss_mb: dbRss === null ? null : r1(dbRss),
  };
}

/**
 * The generator's own health: the busiest process's mean CPU % over the steady seconds, the
 * worst event-loop lag p99, peak RSS.
 */
export function generatorFigures(args: {
  steadySeconds: readonly SecondRecord[];
  workers: number;
  lagsP99Ms: ReadonlyArray<number | null>;
  offeredRatio: number | null;
  /** Shown when the load has more than one part. */
  offeredByPart?: Record<string, number>;
  lateJoins: number;
  /**
   * Sum of the generator processes' RSS before any connection (MiB); null: unknown (e.g. merged
   * shards).
   */
  idleRssMb?: number | null;
  /** Connections joined at the start of the steady window. */
  joined?: number;
}): StepResult['generator'] {
  const perWorkerCpu: number[] = [];
  for (let wi = 0; wi < args.workers; wi++) {
    const xs = args.steadySeconds
      .map((s) => s.workers.find((x) => x.worker === wi)?.health.cpuPct)
      .filter((v): v is number => v !== undefined);
    const m = mean(xs);
    if (m !== null) perWorkerCpu.push(m);
  }
  const cpu = max(perWorkerCpu);
  const lag = max(present(args.lagsP99Ms));
  const rss = max(args.steadySeconds.flatMap((s) => s.workers.map((x) => x.health.rssMb)));
  // Every process's RSS in the same second, summed; the highest such second of the window.
  const complete = args.steadySeconds
    .map((s) => linePerProcess(s.workers))
    .filter((lines) => lines.length === args.workers);
  const total = max(complete.map((lines) => sumOf(lines, (x) => x.health.rssMb)));
  const peak = complete.find((lines) => sumOf(lines, (x) => x.health.rssMb) === total);
  const perConnKb = rssPerConnectionKb(total, args.idleRssMb ?? null, args.joined ?? 0);
  return {
    cpu_pct: cpu === null ? null : r1(cpu),
    event_loop_lag_p99_ms: lag === null ? null : r1(lag),
    offered_ratio: args.offeredRatio === null ? null : r3(args.offeredRatio),
    ...(args.offeredByPart && Object.keys(args.offeredByPart).length > 1
      ? { offered_by_part: args.offeredByPart }
      : {}),
    late_joins: args.lateJoins,
    ...spreadSecondsField(args.steadySeconds),
    rss_mb: rss === null ? null : r1(rss),
    rss_mb_total: total === null ? null : r1(total),
    rss_per_connection_kb: perConnKb === null ? null : r1(perConnKb),
    ...(peak
      ? {
          rss_mb_by_process: [...peak]
            .sort((a, b) => a.worker - b.worker)
            .map((x) => r1(x.health.rssMb)),
        }
      : {}),
    workers: args.workers,
  };
}

/** The steady seconds that hold a piece of a spread line (figures/spread-line); none: absent. */
function spreadSecondsField(seconds: readonly SecondRecord[]): { spread_seconds?: number } {
  const n = seconds.filter((s) => s.workers.some(isSpreadPiece)).length;
  return n > 0 ? { spread_seconds: n } : {};
}

/**
 * One line per process of a second: its own, or the first of a process's late lines (a second
 * also carries lines that arrived after their own second was written, figures/timeline).
 */
function linePerProcess(lines: readonly SecondStats[]): SecondStats[] {
  const seen = new Set<number>();
  return lines.filter((x) => !seen.has(x.worker) && seen.add(x.worker));
}

/**
 * Generator memory per joined connection: what the processes' RSS grew by
 * from ready (before any connection) to the steady window's highest second, over the
 * connections joined. Null without a baseline or a connection.
 */
export function rssPerConnectionKb(
  totalMb: number | null,
  idleMb: number | null,
  joined: number,
): number | null {
  if (totalMb === null || idleMb === null || joined <= 0) return null;
  return ((totalMb - idleMb) * 1024) / joined;
}
