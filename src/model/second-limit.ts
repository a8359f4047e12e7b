/**
 * The limit of this machine one second of a run met, for the live progress line and the
 * dashboard: a generator process out of descriptors or ephemeral ports that second (its
 * connections failed with EMFILE or EADDRNOTAVAIL), or the server process at its open-file limit
 * while connections failed or dropped. The conditions are the ones a step's first reason uses
 * (model/step-limit generatorOsLimit, serverOpenFilesLimit) and the words are its capacity row's
 * (model/limit limitWords), so the live line names the limit as the step, the headline and the
 * row will.
 */
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { limitWords, type Limit } from './limit.js';
import { generatorOsLimit, type GeneratorOs } from './generator-os-limit.js';
import { serverOpenFilesLimit } from './step-limit.js';

/** The second's figures the limit is read from. */
export type SecondLimitInput = Pick<TimeseriesPoint, 'errors' | 'disconnects'> &
  Partial<Pick<TimeseriesPoint, 'server_open_files' | 'generator_os_errors'>>;

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
}

/** The environment limit the second met, or null; the generator's own first, as a step's. */
export function limitOfSecond(p: SecondLimitInput, ctx: SecondLimitContext = {}): Limit | null {
  for (const [errno, n] of Object.entries(p.generator_os_errors ?? {})) {
    const own = n > 0 ? generatorOsLimit(errno, ctx.generatorOs) : null;
    if (own) return own;
  }
  const files = p.server_open_files;
  if (!files) return null;
  return serverOpenFilesLimit(files.open, files, ctx.stepFailing ?? p.errors + p.disconnects);
}

/** "environment limit: server process open-file limit 400", or null when the second met none. */
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
