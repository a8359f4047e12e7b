/** Rounding and small statistics shared by the step's figure functions. */

export { r1, r3, r6 } from '../../util/round.js';
export { sumOf } from '../../util/sum.js';
/** Mean of the values, null for none. */
export const mean = (xs: readonly number[]): number | null =>
  xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
/** Largest value, null for none. */
export const max = (xs: readonly number[]): number | null => (xs.length ? Math.max(...xs) : null);
