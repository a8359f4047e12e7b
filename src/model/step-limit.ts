/**
 * What stopped one step, as a Limit (model/limit), from the step's own figures: the first
 * cause that applies, in this order —
 *
 * 1. the generator (a generator-bound step): its own OS limit first (EMFILE: its open-file
 *    limit; EADDRNOTAVAIL: ephemeral ports per source address — environment limits of rtcap's
 *    process, with the number when known), then CPU, event-loop lag, offered load, pending state;
 * 2. the server's memory, then CPU, at their safe lines (docs/METHOD.md §1.1: memory is the first
 * limit);
 *    memory % of a cgroup limit below the instance's memory is an environment limit (the
 *    server process's memory cgroup, with its bytes), a lower bound;
 * 3. bandwidth (large messages the server could not send out);
 * 4. the server process's open-file limit, when connections failed or dropped while the server
 *    had that many files open (it resets what it cannot accept: no reason is given);
 * 5. a server rejection — only when the server said so: an error reply, a refused upgrade or a
 *    close reason, quoted as recorded;
 * 6. connections that failed without a word from the server (resets, timeouts): the join SLO;
 * 7. connections dropped; 8. delivery (broken) or the join SLO; 9. latency (degraded);
 * 10. otherwise nothing stopped it: the end of the range.
 */
import type { StepResult } from '../result/result.js';
import type { PayloadSizeExtra } from '../result/extra.js';
import { fmtInt } from './format.js';
import type { GeneratorFigure, Limit, LimitKind } from './limit.js';
import { generatorOsLimit, type GeneratorOs } from './generator-os-limit.js';
import { DEFAULT_GENERATOR_LIMITS, type GeneratorLimits } from './verdict-input.js';
import { GENERATOR_ERRNO } from './verdict-generator.js';

/** What a step's limit depends on beyond the step: the safe lines and the run's setting. */
export interface StepLimitContext {
  safe: { cpu_pct: number; mem_pct: number };
  generator?: GeneratorLimits;
  /** The run's first-receipt p95 SLO, for the latency limit's words. */
  slo_p95_ms?: number | null;
  /** The server is rtcap's built-in one (what to do about its limits differs). */
  builtin?: boolean;
  /**
   * rtcap's own processes' limits (RunResult.generator.limits) and how many source addresses
   * they connected from (RunResult.generator.source_addresses; none given: the kernel's one).
   */
  generator_os?: GeneratorOs;
  /**
   * The declared instance's memory: a server whose cgroup allows less ran out of this machine's
   * setting, not of the instance.
   */
  instance_memory_mb?: number | null;
}

/**
 * Errors the server put in words (client/classify, generator/connection-events): an error reply
 * to a join ("join: " in results transcribed from the seed), a refused upgrade, a close frame
 * (1006 is no close frame at all: the TCP connection just ended), a channel error, a refused send
 * or track.
 */
const SERVER_SAID =
  /^(join refused: |join: |upgrade refused: |closed by server: (?!1006\b)|phx_error: |ack error: |presence track refused: )/;

/** Whether an error reason is the server's own words (a reply, a refused upgrade, a close). */
export function isServerSaid(reason: string): boolean {
  return SERVER_SAID.test(reason);
}

/** Whether the most frequent of these errors is the server's own words (a step's refused ramp). */
export function refusedByServer(errors: ReadonlyMap<string, number>): boolean {
  const said = topReason(Object.fromEntries(errors), () => true);
  return said !== null && isServerSaid(said[0]);
}

/**
 * The server's most frequent rejection of a step whose connections failed or dropped, quoted
 * as recorded; null when the server put nothing in words.
 */
export function serverRejectionOf(step: StepResult): { reason: string; count: number } | null {
  const failing = (step.connections?.failed ?? 0) + (step.connections?.disconnected ?? 0);
  return serverRejectionIn(step.errors ?? {}, failing);
}

/**
 * The server's most frequent rejection among `errors`, when `failing` connections failed or
 * dropped; null when none did or the server put nothing in words.
 */
export function serverRejectionIn(
  errors: Record<string, number>,
  failing: number,
): { reason: string; count: number } | null {
  if (failing <= 0) return null;
  const said = topReason(errors, isServerSaid);
  return said ? { reason: said[0], count: said[1] } : null;
}

/**
 * Open files close enough to the limit that the next accept() fails: within 1 % or 8
 * descriptors, since a once-a-second sample misses the moment and a few descriptors come and
 * go (log files, timers, the listening socket).
 */
export function atOpenFilesLimit(open: number, limit: number | null): limit is number {
  if (!limit) return false;
  return open >= limit - Math.max(8, Math.ceil(limit * 0.01));
}

/**
 * The server process at its open-file limit while connections failed or dropped (`failing` of
 * them), as an environment limit; null otherwise. One condition for a step (its most files open)
 * and for a second of the live line (that second's reading), so both name the same limit.
 */
export function serverOpenFilesLimit(
  open: number,
  files: { limit: number | null; pid?: number },
  failing: number,
  builtin?: boolean,
): Extract<Limit, { kind: 'environment' }> | null {
  if (failing <= 0 || !atOpenFilesLimit(open, files.limit)) return null;
  return {
    kind: 'environment',
    resource: 'open files',
    process: 'server',
    limit: files.limit,
    ...(files.pid !== undefined ? { pid: files.pid } : {}),
    builtin: builtin ?? false,
  };
}

function topReason(
  errors: Record<string, number>,
  keep: (reason: string) => boolean,
): [string, number] | null {
  let best: [string, number] | null = null;
  for (const [reason, n] of Object.entries(errors)) {
    if (n > 0 && keep(reason) && (!best || n > best[1])) best = [reason, n];
  }
  return best;
}

function errnoOf(step: StepResult): string | null {
  for (const [reason, n] of Object.entries(step.errors ?? {})) {
    const m = GENERATOR_ERRNO.exec(reason);
    if (m && n > 0) return m[1];
  }
  return null;
}

/**
 * The generator's figures in the order a root cause comes first (CPU starves the loop, which falls
 * behind).
 */
const GENERATOR_REASONS: ReadonlyArray<[GeneratorFigure, RegExp]> = [
  ['CPU', /^generator CPU /],
  ['event-loop lag p99', /^generator event-loop lag p99 /],
  ['offered', /^offered /],
  ['pending state', /pending-(ack|track) state full/],
];

/**
 * The limit the verdict judged the figure against, read from its reason ("… > 60 ms", "… <
 * 99.00%"): the run's own setting even where the result keeps no copy of the profile.
 */
function judgedLimit(figure: GeneratorFigure, reason: string): number | null {
  const m =
    figure === 'offered' ? / < ([\d.]+)%/.exec(reason) : / > ([\d,.]+) ?(ms|%)$/.exec(reason);
  if (!m) return null;
  const n = Number(m[1].replace(/,/g, ''));
  if (!Number.isFinite(n)) return null;
  return figure === 'offered' ? n / 100 : n;
}

/** The figure that made a step generator-bound, named as the verdict named it. */
function generatorLimit(step: StepResult, ctx: StepLimitContext): Limit {
  const lim = ctx.generator ?? DEFAULT_GENERATOR_LIMITS;
  const g = step.generator;
  const errno = errnoOf(step);
  const osLimit = errno ? generatorOsLimit(errno, ctx.generator_os) : null;
  if (osLimit) return osLimit;
  if (errno)
    return { kind: 'generator-bound', figure: 'OS limit', value: null, limit: null, detail: errno };
  const own = step.verdict_reasons.filter((r) => !r.startsWith('also:'));
  for (const [figure, re] of GENERATOR_REASONS) {
    const detail = own.find((r) => re.test(r));
    if (!detail) continue;
    const [value, configured] =
      figure === 'CPU'
        ? [g?.cpu_pct ?? null, lim.max_cpu_pct]
        : figure === 'event-loop lag p99'
          ? [g?.event_loop_lag_p99_ms ?? null, lim.max_event_loop_lag_p99_ms]
          : figure === 'offered'
            ? [g?.offered_ratio ?? null, lim.min_offered_ratio]
            : [null, null];
    return {
      kind: 'generator-bound',
      figure,
      value,
      limit: judgedLimit(figure, detail) ?? configured,
      detail,
    };
  }
  return {
    kind: 'generator-bound',
    figure: 'OS limit',
    value: null,
    limit: null,
    detail: own[0] ?? null,
  };
}

/** The step's first own reason matching `re` (not an "also:" line), or null. */
function reasonMatching(step: StepResult, re: RegExp): string | null {
  return step.verdict_reasons.find((r) => !r.startsWith('also:') && re.test(r)) ?? null;
}

function failedWithoutWords(step: StepResult, failed: number): Limit {
  const other = topReason(step.errors ?? {}, (r) => !isServerSaid(r));
  const how = other ? `: ${other[0]} ×${fmtInt(other[1])}` : '';
  return {
    kind: 'join-slo',
    detail: `${fmtInt(failed)} connections failed${how}, no reason given by the server`,
  };
}

/**
 * The server's memory at its safe line: the instance's own (server memory safe line), or — when
 * memory % was of a cgroup limit below the declared instance's memory (monitor/server-basis) —
 * this machine's setting: an environment limit, the cgroup's bytes, a lower bound.
 */
export function memoryLimit(
  basis: { memory_mb: number; memory_source: 'cgroup' | 'declared' } | undefined,
  memPct: number | null,
  ctx: StepLimitContext,
): Limit {
  const instance = ctx.instance_memory_mb ?? null;
  if (basis?.memory_source === 'cgroup' && (instance === null || basis.memory_mb < instance)) {
    return {
      kind: 'environment',
      resource: 'memory cgroup',
      process: 'server',
      limit: basis.memory_mb * 1048576,
      builtin: ctx.builtin ?? false,
    };
  }
  return { kind: 'server-memory', mem_pct: memPct, safe_pct: ctx.safe.mem_pct };
}

/** What stopped a step; `range-end` when nothing did (a stable step). */
export function limitOfStep(step: StepResult, ctx: StepLimitContext): Limit {
  if (step.verdict === 'generator-bound') return generatorLimit(step, ctx);
  const mem = step.server?.mem_pct ?? null;
  const cpu = step.server?.cpu_pct ?? null;
  if (mem !== null && mem >= ctx.safe.mem_pct) return memoryLimit(step.server?.basis, mem, ctx);
  if (cpu !== null && cpu >= ctx.safe.cpu_pct)
    return { kind: 'server-cpu', cpu_pct: cpu, safe_pct: ctx.safe.cpu_pct };
  // docs/METHOD.md §3: at 100 KB the sender could not get messages out — egress, not receivers.
  if (
    (step.extra as Partial<PayloadSizeExtra> | undefined)?.failure_side === 'server-could-not-send'
  )
    return { kind: 'bandwidth' };
  const failed = step.connections?.failed ?? 0;
  const dropped = step.connections?.disconnected ?? 0;
  const files = step.server?.open_files;
  const atFiles = files && serverOpenFilesLimit(files.max, files, failed + dropped, ctx.builtin);
  if (atFiles) return atFiles;
  const said = serverRejectionOf(step);
  if (said) return { kind: 'server-rejection', ...said };
  if (failed > 0) return failedWithoutWords(step, failed);
  if (dropped > 0) return { kind: 'disconnects', count: dropped };
  if (step.verdict === 'broken') {
    const join = reasonMatching(step, /^joins? /);
    return join
      ? { kind: 'join-slo', detail: join }
      : { kind: 'delivery', detail: step.verdict_reasons[0] ?? null };
  }
  if (step.verdict === 'degraded') {
    const join = reasonMatching(step, /^join/);
    if (join && !reasonMatching(step, /^(?!join )(\w+ )?p9[59] /))
      return { kind: 'join-slo', detail: join };
    const p95 = step.latency_ms?.p95 ?? null;
    const slo = ctx.slo_p95_ms ?? null;
    const over = p95 !== null && slo !== null && p95 > slo;
    return {
      kind: 'latency-slo',
      p95_ms: over ? p95 : null,
      slo_p95_ms: over ? slo : null,
      detail: step.verdict_reasons[0] ?? null,
    };
  }
  return { kind: 'range-end' };
}

/**
 * A row's limit as a short tag (older readers and the docs/METHOD.md §8 advice compare it);
 * `CapacityRow.limit` is the whole limit, worded by model/limit's limitWords.
 */
export type LimitingFactor =
  | 'memory'
  | 'CPU'
  | 'latency SLO'
  | 'delivery'
  | 'join SLO'
  | 'rejection'
  | 'disconnects'
  | 'auth pool'
  | 'bandwidth'
  | 'presence quota'
  | 'no recovery'
  | 'environment'
  | 'generator'
  | 'budget spent'
  | 'not reached'
  | 'no stable step'
  | 'server gone';

const FACTOR_OF_KIND: Record<LimitKind, LimitingFactor> = {
  'server-cpu': 'CPU',
  'server-memory': 'memory',
  'latency-slo': 'latency SLO',
  delivery: 'delivery',
  'join-slo': 'join SLO',
  'server-rejection': 'rejection',
  disconnects: 'disconnects',
  'auth-pool': 'auth pool',
  bandwidth: 'bandwidth',
  'presence-quota': 'presence quota',
  'no-recovery': 'no recovery',
  environment: 'environment',
  'generator-bound': 'generator',
  'budget-spent': 'budget spent',
  'range-end': 'not reached',
  'no-stable-step': 'no stable step',
  'server-gone': 'server gone',
};

/** The short tag of a limit. */
export function factorOfLimit(limit: Limit): LimitingFactor {
  return FACTOR_OF_KIND[limit.kind];
}

/** What stopped a step, as a short tag (limitOfStep has the whole limit). */
export function limitingFactorOfStep(
  step: StepResult,
  safe: StepLimitContext['safe'],
  ctx: Omit<StepLimitContext, 'safe'> = {},
): LimitingFactor {
  return factorOfLimit(limitOfStep(step, { ...ctx, safe }));
}

/** What a run's result says about its limits' setting (every field optional: older results). */
export interface LimitRun {
  profile: { resolved?: unknown };
  target?: { builtin?: boolean; instance?: { memory_mb?: number } };
  slo?: { p95_ms?: number };
  generator?: {
    limits?: { open_files_per_process: number | null; ephemeral_ports: number | null };
    source_addresses?: readonly string[];
  };
}

/**
 * The limit context of a run: its SLO, built-in or not, rtcap's OS limits, the generator's limits.
 */
export function limitContextOf(run: LimitRun): Omit<StepLimitContext, 'safe'> {
  const g = (run.profile.resolved as { generator?: Partial<GeneratorLimits> } | null | undefined)
    ?.generator;
  return {
    generator: { ...DEFAULT_GENERATOR_LIMITS, ...g },
    slo_p95_ms: run.slo?.p95_ms ?? null,
    builtin: run.target?.builtin ?? false,
    generator_os: run.generator?.limits
      ? {
          ...run.generator.limits,
          source_addresses: Math.max(1, run.generator.source_addresses?.length ?? 0),
        }
      : null,
    instance_memory_mb: run.target?.instance?.memory_mb ?? null,
  };
}
