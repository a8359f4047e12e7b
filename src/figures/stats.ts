/** Small statistics shared by the step's figure functions. */
import { sumOf } from '../util/sum.js';

/** Mean of the values, null for none. */
export const mean = (xs: readonly number[]): number | null =>
  xs.length ? sumOf(xs, (x) => x) / xs.length : null;
/** Largest value, null for none. */
export const max = (xs: readonly number[]): number | null => (xs.length ? Math.max(...xs) : null);
