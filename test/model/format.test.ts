import { describe, expect, it } from 'vitest';
import { fmtBytes, fmtInt, fmtMs, fmtPct, fmtRate, fmtRatioPct, floorSig, niceFloor } from '../../src/model/format.js';

describe('format', () => {
  it('null is "—", never 0', () => {
    for (const f of [fmtInt, fmtMs, fmtPct, fmtRate, fmtRatioPct, fmtBytes]) expect(f(null)).toBe('—');
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
    expect(niceFloor(26_798)).toBe(25_000);
    expect(niceFloor(33_988)).toBe(30_000);
    expect(niceFloor(12_670)).toBe(10_000);
    expect(niceFloor(125)).toBe(100);
    expect(niceFloor(62.5)).toBe(60);
    expect(niceFloor(7)).toBe(7);
  });
});
