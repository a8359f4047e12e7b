/**
 * The limit of this machine one second of a run met, for the live progress line and the
 * dashboard: a generator process out of descriptors or ephemeral ports that second (its
 * connections failed with EMFILE or EADDRNOTAVAIL), the server's memory at its safe line of a
 * memory cgroup tighter than the instance, or the server process at its open-file limit while
 * connections failed or dropped. The conditions are the ones a step's first reason uses
 * (model/step-limit generatorOsLimit, memoryLimit, serverOpenFilesLimit), in its order, and the
 * words are its capacity row's (model/limit limitWords), so the live line names the limit as the
 * step, the headline and the row will.
 */
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { limitWords, type Limit } from './limit.js';
import { generatorOsLimit, type GeneratorOs } from './generator-os-limit.js';
import {
  limitContextOf,
  memoryLimit,
  serverOpenFilesLimit,
  type LimitRun,
  type StepLimitContext,
} from './step-limit.js';
import { DEFAULT_SAFE_LINES } from './capacity-row.js';
import { r1 } from '../util/round.js';

/** The second's figures the limit is read from. */
export type SecondLimitInput = Pick<TimeseriesPoint, 'errors' | 'disconnects'> &
  Partial<Pick<TimeseriesPoint, 'server_open_files' | 'generator_os_errors' | 'server_rss_mb'>>;

/**
 * What the server's memory % is of (monitor/server-basis: its memory cgroup's limit, else the
 * declared instance's memory), and the run's limit context the memory safe line, the declared
 * instance's memory and built-in or not come from, as a step's memory limit reads them.
 */
export interface ServerMemory {
  basis: { memory_mb: number; memory_source: 'cgroup' | 'declared' };
  limits: Pick<StepLimitContext, 'safe' | 'instance_memory_mb' | 'builtin'>;
}

export type { GeneratorOs };

/**
 * What a second's limit is read against beyond the second: rtcap's own limits, and the
 * connections that failed or dropped in its step so far (this second included). The server's
 * file table is sampled once a second, so the second whose connections failed may hold a
 * sample from before the ramp got there; a step's limit counts its failures over the step
 * too. Without `stepFailing`, the second's own.
 */
export interface SecondLimitContext {
  generatorOs?: GeneratorOs;
  stepFailing?: number;
  /** Without it, no memory limit is read. */
  serverMemory?: ServerMemory;
}

/** What a run's seconds are read against; each second adds its step's failures. */
export type SecondLimits = Omit<SecondLimitContext, 'stepFailing'>;

/**
 * A run's SecondLimits: rtcap's own OS limits, and the server's memory basis (null: not known)
 * with the memory safe line, the declared instance's memory and built-in or not that a step's
 * reasons read its memory limit with (figures/named-limit).
 */
export function secondLimitsOf(run: LimitRun, basis: ServerMemory['basis'] | null): SecondLimits {
  const c = limitContextOf(run);
  const limits = {
    safe: DEFAULT_SAFE_LINES,
    instance_memory_mb: c.instance_memory_mb,
    builtin: c.builtin,
  };
  return { generatorOs: c.generator_os, ...(basis ? { serverMemory: { basis, limits } } : {}) };
}

/**
 * The server's memory cgroup when the second's RSS sample is at the memory safe line of it and
 * that cgroup is tighter than the instance (model/step-limit memoryLimit on the second's memory %,
 * as a step reads its steady mean's); null otherwise.
 */
export function memoryCgroupOfSecond(
  p: Pick<SecondLimitInput, 'server_rss_mb'>,
  m: ServerMemory | undefined,
): Limit | null {
  const rss = p.server_rss_mb;
  if (!m || rss == null || !(m.basis.memory_mb > 0)) return null;
  const memPct = r1((rss / m.basis.memory_mb) * 100);
  if (memPct < m.limits.safe.mem_pct) return null;
  const limit = memoryLimit(m.basis, memPct, m.limits);
  return limit.kind === 'environment' ? limit : null;
}

/** The environment limit the second met, or null; the generator's own first, as a step's. */
export function limitOfSecond(p: SecondLimitInput, ctx: SecondLimitContext = {}): Limit | null {
  for (const [errno, n] of Object.entries(p.generator_os_errors ?? {})) {
    const own = n > 0 ? generatorOsLimit(errno, ctx.generatorOs) : null;
    if (own) return own;
  }
  const memory = memoryCgroupOfSecond(p, ctx.serverMemory);
  if (memory) return memory;
  const files = p.server_open_files;
  if (!files) return null;
  return serverOpenFilesLimit(files.open, files, ctx.stepFailing ?? p.errors + p.disconnects);
}

/**
 * "environment limit: server process open-file limit 400" (or "… memory cgroup limit 512 MB"), or
 * null when the second met none.
 */
export function secondLimitWords(p: SecondLimitInput, ctx: SecondLimitContext = {}): string | null {
  const limit = limitOfSecond(p, ctx);
  return limit ? limitWords(limit, { remedy: false }) : null;
}

/**
 * Counts the connections that failed or dropped in the current step, second by second, for
 * `stepFailing`: a new step starts the count again.
 */
export class StepFailing {
  private step = -1;
  private n = 0;

  /** Adds the second's failures and returns its step's so far. */
  add(p: Pick<TimeseriesPoint, 'step' | 'errors' | 'disconnects'>): number {
    if (p.step !== this.step) {
      this.step = p.step;
      this.n = 0;
    }
    this.n += p.errors + p.disconnects;
    return this.n;
  }
}
