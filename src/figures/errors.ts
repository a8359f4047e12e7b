/**
 * Errors of the step by verbatim reason and by class, over every process and the coordinator's
 * inserts.
 */
import type { ErrorClass } from '../result/result.js';
import type { StepCollected } from '../generator/ipc.js';
import { addCounts } from '../util/counts.js';

export interface StepErrors {
  errors: Record<string, number>;
  errorClasses: Record<ErrorClass, number>;
}

/** A step's errors by verbatim reason, summed over generator processes. */
export function stepErrors(
  collected: ReadonlyArray<Pick<StepCollected, 'errors'>>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of collected) addCounts(out, c.errors);
  return out;
}

/** Insert errors are the database's (server class): the coordinator's own inserts were refused. */
export function mergeErrors(
  collected: ReadonlyArray<Pick<StepCollected, 'errors' | 'errorClasses'>>,
  insertErrors: Record<string, number> = {},
): StepErrors {
  const errors = addCounts(stepErrors(collected), insertErrors);
  const errorClasses: Record<ErrorClass, number> = {
    server: 0,
    network: 0,
    generator: 0,
    protocol: 0,
  };
  for (const c of collected)
    for (const k of Object.keys(errorClasses) as ErrorClass[]) errorClasses[k] += c.errorClasses[k];
  for (const v of Object.values(insertErrors)) errorClasses.server += v;
  // A record built from the Map lists names as one built name by name would.
  return { errors: Object.fromEntries(errors), errorClasses };
}
