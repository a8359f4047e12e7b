/**
 * Errors of the step by reason and by class, over every process and the coordinator's inserts.
 * Reasons that differ only in quoted values or long numbers are one, named by its first verbatim
 * text (util/error-groups).
 */
import type { ErrorClass } from '../result/result.js';
import type { StepCollected } from '../generator/ipc.js';
import { groupErrors } from '../util/error-groups.js';

export interface StepErrors {
  errors: Record<string, number>;
  errorClasses: Record<ErrorClass, number>;
}

/** A step's errors by reason (grouped: util/error-groups), summed over generator processes. */
export function stepErrors(
  collected: ReadonlyArray<Pick<StepCollected, 'errors'>>,
): Map<string, number> {
  return groupErrors(...collected.map((c) => c.errors));
}

/** Insert errors are the database's (server class): the coordinator's own inserts were refused. */
export function mergeErrors(
  collected: ReadonlyArray<Pick<StepCollected, 'errors' | 'errorClasses'>>,
  insertErrors: Record<string, number> = {},
): StepErrors {
  const errors = groupErrors(...collected.map((c) => c.errors), insertErrors);
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
