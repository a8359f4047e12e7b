import { describe, expect, it } from 'vitest';
import { StepHealth, topError } from '../../src/run/step-health.js';
import type { SecondRecord } from '../../src/figures/timeline.js';

const sec = (
  joined: number,
  open: number,
  errorReasons: Record<string, number> = {},
  disconnects = Object.values(errorReasons).reduce((a, b) => a + b, 0),
) =>
  ({
    point: { joined, connections_open: open },
    workers: [{ errorReasons, disconnects }],
  }) as unknown as SecondRecord;

describe('step health', () => {
  it('stops a ramp where nothing joined and attempts kept failing (20, or every connection)', () => {
    const h = new StepHealth();
    expect(h.check(sec(0, 0, { ECONNREFUSED: 19 }), 'ramp', 100)).toBeNull();
    expect(h.check(sec(0, 0, { ECONNREFUSED: 1 }), 'ramp', 100)).toBe(
      'no connection could join: ECONNREFUSED (×20)',
    );
    h.reset();
    expect(h.check(sec(0, 0, { x: 2 }), 'ramp', 2)).toBe('no connection could join: x (×2)');
  });

  it("a ramp past the generator's own open-file limit goes on: EMFILE is not the target refusing", () => {
    const h = new StepHealth();
    const emfile = 'generator: EMFILE (open-file limit reached: 1,024 per process)';
    expect(h.check(sec(0, 0, { [emfile]: 196 }), 'ramp', 1200)).toBeNull();
    expect(h.check(sec(0, 0, { ECONNREFUSED: 19 }), 'ramp', 1200)).toBeNull();
    expect(h.check(sec(0, 0, { ECONNREFUSED: 1 }), 'ramp', 1200)).toBe(
      `no connection could join: ${emfile} (×196 of 216 errors)`,
    );
  });

  it('stops a step whose server dropped every connection, not one where some joined and remain', () => {
    const h = new StepHealth();
    expect(h.check(sec(5, 5), 'steady', 5)).toBeNull();
    expect(h.check(sec(0, 1, { closed: 4 }), 'steady', 5)).toBeNull();
    expect(h.check(sec(0, 0, { closed: 1 }), 'drain', 5)).toBe(
      'all 5 connections were lost: closed (×5)',
    );
  });

  it('connections all dropped without a close frame: the server went away', () => {
    const h = new StepHealth();
    const drop =
      'connection dropped without a close frame (1006): the server went away or the network failed';
    expect(h.check(sec(20, 20), 'steady', 20)).toBeNull();
    expect(h.check(sec(0, 0, { [drop]: 20 }), 'steady', 20)).toBe(
      'the server went away: all 20 connections were lost without a close frame (1006)',
    );
  });

  it('a second with none open after rtcap closed them itself (no disconnect) is no loss', () => {
    const h = new StepHealth();
    expect(h.check(sec(12, 12), 'drain', 12)).toBeNull();
    expect(h.check(sec(0, 0, {}, 0), 'drain', 12)).toBeNull();
    // Dropped by the server without an error frame: still a loss.
    expect(h.check(sec(0, 0, {}, 12), 'drain', 12)).toBe(
      'all 12 connections were lost: no error reported',
    );
  });

  it('names the most frequent error with the total', () => {
    expect(
      topError(
        new Map([
          ['a', 1],
          ['b', 3],
        ]),
      ),
    ).toBe('b (×3 of 4 errors)');
    expect(topError(new Map())).toBe('no error reported');
  });
});

describe('step health with load.reconnect', () => {
  const at = (t: number, joined: number, errorReasons: Record<string, number> = {}) =>
    ({
      point: { t, joined, connections_open: joined },
      workers: [
        { errorReasons, disconnects: Object.values(errorReasons).reduce((a, b) => a + b, 0) },
      ],
    }) as unknown as SecondRecord;
  const drop = 'connection dropped without a close frame (1006)';

  it('rides out a gap shorter than the reconnect attempts last; ends the run after it', () => {
    const h = new StepHealth();
    expect(h.check(at(100, 20), 'steady', 20, 5_000)).toBeNull();
    expect(h.check(at(101, 0, { [drop]: 20 }), 'steady', 20, 5_000)).toBeNull();
    expect(h.check(at(104, 0), 'steady', 20, 5_000)).toBeNull();
    // Back: the watch starts over.
    expect(h.check(at(105, 20), 'steady', 20, 5_000)).toBeNull();
    expect(h.check(at(106, 0, { [drop]: 20 }), 'steady', 20, 5_000)).toBeNull();
    expect(h.check(at(111, 0), 'drain', 20, 5_000)).toBe(
      `all 20 connections were lost and none reconnected within 5 s (load.reconnect): ${drop} (×40)`,
    );
  });
});
