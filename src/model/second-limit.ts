/**
 * The limit of this machine one second of a run met, for the live progress line and the
 * dashboard: the server process at its open-file limit while connections failed or dropped in
 * that second. The condition is the one a step's first reason uses (model/step-limit
 * serverOpenFilesLimit) and the words are its capacity row's (model/limit limitWords), so the
 * live line names the limit as the step, the headline and the row will.
 */
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { limitWords, type Limit } from './limit.js';
import { serverOpenFilesLimit } from './step-limit.js';

/** The second's figures the limit is read from. */
export type SecondLimitInput = Pick<TimeseriesPoint, 'errors' | 'disconnects'> &
  Partial<Pick<TimeseriesPoint, 'server_open_files'>>;

/** The environment limit the second met, or null. */
export function limitOfSecond(p: SecondLimitInput): Limit | null {
  const files = p.server_open_files;
  if (!files) return null;
  return serverOpenFilesLimit(files.open, files, p.errors + p.disconnects);
}

/** "environment limit: server process open-file limit 400", or null when the second met none. */
export function secondLimitWords(p: SecondLimitInput): string | null {
  const limit = limitOfSecond(p);
  return limit ? limitWords(limit, { remedy: false }) : null;
}
