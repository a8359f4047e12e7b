/** Rounding and small statistics shared by the step's figure functions. */

/** One decimal (rates, percentages, MB). */
export const r1 = (v: number): number => Math.round(v * 10) / 10;
/** Three decimals (ratios). */
export const r3 = (v: number): number => Math.round(v * 1000) / 1000;
/** Six decimals (delivery rates). */
export const r6 = (v: number): number => Math.round(v * 1e6) / 1e6;
/** Mean of the values, null for none. */
export const mean = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
/** Largest value, null for none. */
export const max = (xs: readonly number[]): number | null => (xs.length ? Math.max(...xs) : null);
/** Sum of one count over every generator process. */
export const sumOf = <T>(items: readonly T[], f: (item: T) => number): number => items.reduce((a, x) => a + f(x), 0);
