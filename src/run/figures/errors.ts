/**
 * Errors of the step by verbatim reason and by class, over every process and the coordinator's
 * inserts.
 */
import type { ErrorClass } from '../../result/result.js';
import type { StepCollected } from '../../load/ipc.js';

export interface StepErrors {
  errors: Record<string, number>;
  errorClasses: Record<ErrorClass, number>;
}

/** Insert errors are the database's (server class): the coordinator's own inserts were refused. */
export function mergeErrors(
  collected: ReadonlyArray<Pick<StepCollected, 'errors' | 'errorClasses'>>,
  insertErrors: Record<string, number> = {},
): StepErrors {
  const errors: Record<string, number> = {};
  const errorClasses: Record<ErrorClass, number> = {
    server: 0,
    network: 0,
    generator: 0,
    protocol: 0,
  };
  for (const c of collected) {
    for (const [k, v] of Object.entries(c.errors)) errors[k] = (errors[k] ?? 0) + v;
    for (const k of Object.keys(errorClasses) as ErrorClass[]) errorClasses[k] += c.errorClasses[k];
  }
  for (const [k, v] of Object.entries(insertErrors)) {
    errors[k] = (errors[k] ?? 0) + v;
    errorClasses.server += v;
  }
  return { errors, errorClasses };
}
