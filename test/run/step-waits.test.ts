/**
 * The bounded waits of a step's phases. A step that ends with its ramp returns once the second
 * after the ramp is written and the server was sampled after the ramp, and gives up after its
 * bound otherwise. A close returns once the generator's sockets are closed and the server's open
 * files (when read) stopped falling. The timeline and the abort's sleep are stand-ins whose clock
 * moves only when slept on.
 */
import { describe, expect, it } from 'vitest';
import type { AbortFunnel } from '../../src/run/abort.js';
import type { Timeline } from '../../src/figures/timeline.js';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import {
  closedDown,
  secondAfterRampWritten,
  serverFilesSettled,
} from '../../src/run/step-waits.js';

/**
 * The waits' stand-ins: a clock that moves only when slept on, and a timeline made from it.
 */
function standIn(timelineAt: (clockMs: number) => object) {
  let clock = 0;
  // Each read of the timeline sees it as it is at the clock now.
  const timeline = new Proxy(
    {},
    {
      get: (_, k) => (timelineAt(clock) as Record<string | symbol, unknown>)[k],
    },
  ) as Timeline;
  const funnel = {
    sleep: (ms: number) => {
      clock += ms;
      return Promise.resolve();
    },
  } as unknown as AbortFunnel;
  return { timeline, funnel, waited: () => clock };
}

/** A timeline whose written seconds and server samples appear at given clock times. */
function world(x: {
  secondT: number;
  lineAtMs: number;
  sampleT: number | null;
  sampleAtMs: number;
}) {
  return standIn((clock) => ({
    seconds: clock >= x.lineAtMs ? [{ point: { t: x.secondT } }] : [],
    newestServerSampleMs: x.sampleT === null ? null : clock >= x.sampleAtMs ? x.sampleT : 0,
  }));
}

describe('secondAfterRampWritten', () => {
  it('waits for the second after the ramp and a server sample after the ramp', async () => {
    // Ramp ended at 10.4 s: second 11 is written at 1,600 ms, a sample at 10.9 s came at 500.
    const w = world({ secondT: 11, lineAtMs: 1_600, sampleT: 10_900, sampleAtMs: 500 });
    await secondAfterRampWritten(w, 10_400);
    expect(w.waited()).toBe(1_600);
  });

  it('waits for a sample after the ramp when the second came first', async () => {
    const w = world({ secondT: 11, lineAtMs: 300, sampleT: 11_900, sampleAtMs: 900 });
    await secondAfterRampWritten(w, 10_400);
    expect(w.waited()).toBe(900);
  });

  it('does not wait for a sample when the server is not sampled', async () => {
    const w = world({ secondT: 11, lineAtMs: 300, sampleT: null, sampleAtMs: 0 });
    await secondAfterRampWritten(w, 10_400);
    expect(w.waited()).toBe(300);
  });

  it('the second the ramp ended in is not enough: gives up after 4 s without a later one', async () => {
    const w = world({ secondT: 10, lineAtMs: 0, sampleT: 10_900, sampleAtMs: 0 });
    await secondAfterRampWritten(w, 10_400);
    expect(w.waited()).toBe(4_000);
  });
});

const at = (t: number, open: number, files?: number) =>
  ({
    t,
    connections_open: open,
    ...(files === undefined ? {} : { server_open_files: { open: files, limit: 400 } }),
  }) as TimeseriesPoint;

describe('serverFilesSettled', () => {
  it('is settled once the server’s open files stop falling', () => {
    expect(serverFilesSettled([at(1, 0, 395)])).toBe(false);
    expect(serverFilesSettled([at(1, 0, 395), at(2, 0, 200)])).toBe(false);
    expect(serverFilesSettled([at(1, 0, 395), at(2, 0, 200), at(3, 0, 15)])).toBe(false);
    expect(serverFilesSettled([at(2, 0, 200), at(3, 0, 15), at(4, 0, 15)])).toBe(true);
    expect(serverFilesSettled([at(3, 0, 15), at(4, 0, 17)])).toBe(true);
  });

  it('does not wait for a server whose files are not read', () => {
    expect(serverFilesSettled([at(1, 0)])).toBe(true);
  });
});

describe('closedDown', () => {
  /** Second t written once it is over, at (t + 1) × 1,000 ms of the stand-in clock. */
  function closing(points: TimeseriesPoint[]) {
    return standIn((clock) => ({
      seconds: points.filter((p) => (p.t + 1) * 1000 <= clock).map((point) => ({ point })),
    }));
  }

  it('waits for the server to close its side, not only the generator', async () => {
    // Closed at 0.5 s: the generator's sockets are gone in second 1, the server's files fall
    // until second 3 and stay in second 4.
    const w = closing([at(1, 0, 395), at(2, 0, 200), at(3, 0, 15), at(4, 0, 15)]);
    await closedDown(w, 0, 500);
    expect(w.waited()).toBe(5_000);
  });

  it('without server files, one second after the close with the sockets closed', async () => {
    const w = closing([at(1, 3), at(2, 0), at(3, 0)]);
    await closedDown(w, 0, 500);
    expect(w.waited()).toBe(3_000);
  });
});
