import { describe, expect, it } from 'vitest';
import { ackedPerS, ackFigures } from '../../src/measure/ack-figures.js';

describe('ackFigures', () => {
  it('sums every process, each outcome once', () => {
    expect(
      ackFigures([
        { acks: { ok: 90, errors: 1, unacked: 9, untracked: 0 } },
        { acks: { ok: 10, errors: 0, unacked: 1, untracked: 2 } },
      ]),
    ).toEqual({ acked: 100, ackErrors: 1, unacked: 10, untracked: 2 });
  });
  it('reads results of processes that counted only ok and errors', () => {
    expect(ackFigures([{ acks: { ok: 3, errors: 1 } }])).toEqual({
      acked: 3,
      ackErrors: 1,
      unacked: 0,
      untracked: 0,
    });
  });
});

describe('ackedPerS', () => {
  const sec = (acked: number) => ({ point: { acked_per_s: acked } });
  it('is the mean of the per-second ack counts over the steady seconds', () => {
    expect(ackedPerS(true, [sec(90), sec(100), sec(95)])).toBe(95);
  });
  it('is null without acks or without a whole steady second', () => {
    expect(ackedPerS(false, [sec(90)])).toBeNull();
    expect(ackedPerS(true, [])).toBeNull();
  });
});
