/**
 * Number formatting shared by the model's texts (fit formulas, capacity evidence) and the
 * report renderers. One rule runs through all of it: a missing measurement is "—", never
 * 0 (docs/FIGURES.md "Measurement rules": missing is null, never 0), and a rounded figure
 * never claims more than was measured (delivery 99.9996 % is not "100 %").
 */

import type { CutShortPhase, StepCutShort } from '../result/cut-short.js';

export const DASH = '—';

/**
 * The one label of a step cut short (interrupt, abort): its figures cover only what ran, and
 * it is never cited as capacity. Every renderer says it this way.
 */
export const INCOMPLETE_LABEL = 'incomplete (cut short)';

const PHASE_WORDS: Record<CutShortPhase, string> = {
  ramp: 'in the ramp',
  warmup: 'in the warm-up',
  steady: 'in the steady window',
  drain: 'in the drain',
};

/**
 * What cut a step short and where: "cut short by SIGINT in the steady window", "cut short in the
 * ramp: ramp did not finish within 610 s"; without a recorded cause (older results), "cut short".
 */
export function cutShortWords(cut: Pick<StepCutShort, 'by' | 'phase'> | undefined): string {
  if (!cut) return 'cut short';
  const where = PHASE_WORDS[cut.phase] ?? `in the ${cut.phase}`;
  return /^SIG[A-Z]+$/.test(cut.by) || cut.by === 'an interrupt'
    ? `cut short by ${cut.by} ${where}`
    : `cut short ${where}: ${cut.by}`;
}

/**
 * The incomplete label with its cause when the step records one: "incomplete (cut short by SIGINT
 * in the steady window)"; INCOMPLETE_LABEL otherwise.
 */
export function incompleteLabel(cut: Pick<StepCutShort, 'by' | 'phase'> | undefined): string {
  return cut ? `incomplete (${cutShortWords(cut)})` : INCOMPLETE_LABEL;
}

/** Whether a verdict reason is the incomplete label's line (with or without its cause). */
export function isIncompleteReason(reason: string): boolean {
  return reason.startsWith('incomplete (cut short');
}

function isNum(n: number | null | undefined): n is number {
  return typeof n === 'number' && Number.isFinite(n);
}

/** Inserts thousands separators into the integer part of a decimal string. */
function group(s: string): string {
  const neg = s.startsWith('-');
  const body = neg ? s.slice(1) : s;
  const [int, frac] = body.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (neg ? '-' : '') + grouped + (frac !== undefined ? `.${frac}` : '');
}

/** 20000 → "20,000"; null → "—". */
export function fmtInt(n: number | null | undefined): string {
  if (!isNum(n)) return DASH;
  const r = Math.round(n);
  return group(String(Object.is(r, -0) ? 0 : r));
}

/** Fixed decimals with grouping: fmtNum(1234.5, 1) → "1,234.5". */
export function fmtNum(n: number | null | undefined, decimals: number): string {
  if (!isNum(n)) return DASH;
  return group(n.toFixed(decimals));
}

/** A value already in percent (server CPU %, memory %): 82 → "82.0%". */
export function fmtPct(pct: number | null | undefined, decimals = 1): string {
  if (!isNum(pct)) return DASH;
  return `${pct.toFixed(decimals)}%`;
}

/**
 * A ratio (delivery rate, join success) as percent, floored so that anything short of
 * complete never prints as 100 %: 1 → "100%", 0.99999 → "99.99%", 0.9787 → "97.87%".
 */
export function fmtRatioPct(ratio: number | null | undefined, decimals = 2): string {
  if (!isNum(ratio)) return DASH;
  if (ratio === 1) return '100%';
  const f = 10 ** decimals;
  const floored = Math.floor(ratio * 100 * f) / f;
  return `${floored.toFixed(decimals)}%`;
}

/** Latency as docs/METHOD.md §2.1 prints it: "0.42 ms", "3.2 ms", "1,586 ms", "21.0 s". */
export function fmtMs(ms: number | null | undefined): string {
  if (!isNum(ms)) return DASH;
  const a = Math.abs(ms);
  if (a < 1) return `${ms.toFixed(2)} ms`;
  if (a < 10) return `${ms.toFixed(1)} ms`;
  if (a < 10_000) return `${fmtInt(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A per-second rate: 27000 → "27,000/s"; small rates keep a decimal: 2.5 → "2.5/s". */
export function fmtRate(perS: number | null | undefined): string {
  if (!isNum(perS)) return DASH;
  if (Math.abs(perS) < 100 && !Number.isInteger(perS)) return `${perS.toFixed(1)}/s`;
  return `${fmtInt(perS)}/s`;
}

/** Bytes as docs/METHOD.md §3 prints sizes: 64 → "64 B", 1024 → "1 KB", 102400 → "100 KB". */
export function fmtBytes(bytes: number | null | undefined): string {
  if (!isNum(bytes)) return DASH;
  if (bytes < 1024) return `${fmtInt(bytes)} B`;
  if (bytes < 1024 * 1024) return `${trimZeros((bytes / 1024).toFixed(1))} KB`;
  return `${trimZeros((bytes / (1024 * 1024)).toFixed(1))} MB`;
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/**
 * Rounds down to `sig` significant figures. A recommended value is a safety limit, so it
 * is never rounded up: 26,798 → 26,700 (sig 3).
 */
export function floorSig(n: number, sig = 3): number {
  if (!Number.isFinite(n) || n <= 0) return n;
  const mag = 10 ** (Math.floor(Math.log10(n)) - sig + 1);
  return Math.floor(n / mag + 1e-9) * mag;
}

/** At most this share below the measured value may a recommended setting be rounded. */
export const MAX_ROUNDING_SHORTFALL = 0.05;

/**
 * Rounds down to the roundest configuration value within `maxShortfall` below n: a multiple
 * of the leading decade, else of half of it, a tenth, a twentieth, … — the first whose floor
 * stays within the shortfall. 19,374 → 19,000 (not 15,000), 26,798 → 26,000, 12,670 → 12,500,
 * 33,988 → 33,000, 125 → 120, 62.5 → 60, 7 → 7. A safety limit is never rounded up.
 */
export function niceFloor(n: number, maxShortfall = MAX_ROUNDING_SHORTFALL): number {
  if (!Number.isFinite(n) || n <= 0) return n;
  const decade = 10 ** Math.floor(Math.log10(n));
  for (let i = 0; i < 16; i++) {
    const unit = decade * (i % 2 === 0 ? 1 : 0.5) * 10 ** -Math.floor(i / 2);
    const v = Number((Math.floor(n / unit + 1e-9) * unit).toPrecision(12));
    if (v >= n * (1 - maxShortfall)) return v;
  }
  return n;
}

/** Signed term for formulas: " + 2.41" / " − 2.41" (typographic minus, as seed 002 prints). */
export function signedTerm(n: number, decimals: number): string {
  const s = Math.abs(n).toFixed(decimals);
  return n < 0 && Number(s) !== 0 ? ` − ${s}` : ` + ${s}`;
}

/** Leading value of a formula with a typographic minus: -3.2 → "−3.2". */
export function leadingValue(n: number, decimals: number): string {
  const s = Math.abs(n).toFixed(decimals);
  return n < 0 && Number(s) !== 0 ? `−${s}` : s;
}
