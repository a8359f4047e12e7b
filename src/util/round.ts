/**
 * Rounding to a fixed number of decimals: the one definition every figure, stamp and line
 * of rtcap uses (imports nothing; every folder may import it).
 */

/** One decimal (rates, percentages, MB). */
export const r1 = (v: number): number => Math.round(v * 10) / 10;
/** Two decimals (load averages, vCPUs). */
export const r2 = (v: number): number => Math.round(v * 100) / 100;
/** Three decimals (ratios; times in ms to the µs). */
export const r3 = (v: number): number => Math.round(v * 1000) / 1000;
/** Six decimals (delivery rates). */
export const r6 = (v: number): number => Math.round(v * 1e6) / 1e6;
