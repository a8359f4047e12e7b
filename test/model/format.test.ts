import { describe, expect, it } from 'vitest';
import {
  cutShortWords,
  incompleteLabel,
  isIncompleteReason,
  fmtBytes,
  fmtInt,
  fmtMs,
  fmtPct,
  fmtRate,
  fmtRatioPct,
  floorSig,
  niceFloor,
} from '../../src/model/format.js';

describe('format', () => {
  it('null is "—", never 0', () => {
    for (const f of [fmtInt, fmtMs, fmtPct, fmtRate, fmtRatioPct, fmtBytes])
      expect(f(null)).toBe('—');
    expect(fmtInt(Number.NaN)).toBe('—');
  });

  it('a delivery short of complete never prints as 100 %', () => {
    expect(fmtRatioPct(1)).toBe('100%');
    expect(fmtRatioPct(0.999999)).toBe('99.99%');
    expect(fmtRatioPct(0.9787)).toBe('97.87%');
    expect(fmtRatioPct(0)).toBe('0.00%');
  });

  it('numbers the seed way', () => {
    expect(fmtInt(45_800)).toBe('45,800');
    expect(fmtInt(-1234.4)).toBe('-1,234');
    expect(fmtPct(91.6)).toBe('91.6%');
    expect(fmtMs(0.42)).toBe('0.42 ms');
    expect(fmtMs(3.21)).toBe('3.2 ms');
    expect(fmtMs(1586)).toBe('1,586 ms');
    expect(fmtMs(21_000)).toBe('21.0 s');
    expect(fmtRate(27_000)).toBe('27,000/s');
    expect(fmtRate(62.5)).toBe('62.5/s');
    expect(fmtBytes(64)).toBe('64 B');
    expect(fmtBytes(1024)).toBe('1 KB');
    expect(fmtBytes(102_400)).toBe('100 KB');
    expect(fmtBytes(1.5 * 1024 * 1024)).toBe('1.5 MB');
  });

  it('recommended values round down, never up', () => {
    expect(floorSig(26_798.004, 3)).toBe(26_700);
    expect(floorSig(21_250, 3)).toBe(21_200);
    expect(floorSig(62.5, 3)).toBe(62.5);
    // The roundest value at most 5 % below: never 19,374 → 15,000.
    expect(niceFloor(19_374)).toBe(19_000);
    expect(niceFloor(26_798)).toBe(26_000);
    expect(niceFloor(33_988)).toBe(33_000);
    expect(niceFloor(12_670)).toBe(12_500);
    expect(niceFloor(30_000)).toBe(30_000);
    expect(niceFloor(125)).toBe(120);
    expect(niceFloor(62.5)).toBe(60);
    expect(niceFloor(7)).toBe(7);
    expect(niceFloor(7.37)).toBe(7.3);
    for (const n of [1.234, 19_374, 26_798, 99_999, 100_001, 0.0421]) {
      expect(niceFloor(n)).toBeLessThanOrEqual(n);
      expect(niceFloor(n)).toBeGreaterThanOrEqual(n * 0.95);
    }
    expect(niceFloor(26_798, 0.1)).toBe(25_000);
  });
});

describe('a step cut short, in words', () => {
  it('names a signal as "by", an abort reason after a colon, and the phase', () => {
    expect(cutShortWords({ by: 'SIGINT', phase: 'steady' })).toBe(
      'cut short by SIGINT in the steady window',
    );
    expect(cutShortWords({ by: 'ramp did not finish within 610 s', phase: 'ramp' })).toBe(
      'cut short in the ramp: ramp did not finish within 610 s',
    );
    expect(incompleteLabel({ by: 'SIGTERM', phase: 'warmup' })).toBe(
      'incomplete (cut short by SIGTERM in the warm-up)',
    );
    // Results written before the cause was recorded.
    expect(incompleteLabel(undefined)).toBe('incomplete (cut short)');
    expect(cutShortWords(undefined)).toBe('cut short');
  });

  it('recognises the label line with or without its cause', () => {
    expect(isIncompleteReason('incomplete (cut short): figures cover only what ran')).toBe(true);
    expect(isIncompleteReason('incomplete (cut short by SIGINT in the ramp): figures …')).toBe(
      true,
    );
    expect(isIncompleteReason('delivery 100%')).toBe(false);
  });
});
