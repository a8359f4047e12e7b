/**
 * The bounded wait of a step that ends with its ramp: it returns once the second the ramp ended in
 * is written and the server was sampled after the ramp, and gives up after its bound otherwise.
 * The timeline and the abort's sleep are stand-ins whose clock moves only when slept on.
 */
import { describe, expect, it } from 'vitest';
import type { AbortFunnel } from '../../src/run/abort.js';
import type { Timeline } from '../../src/figures/timeline.js';
import { rampSecondWritten } from '../../src/run/step-waits.js';

/** A timeline whose written seconds and server samples appear at given clock times. */
function world(x: {
  secondT: number;
  lineAtMs: number;
  sampleT: number | null;
  sampleAtMs: number;
}) {
  let clock = 0;
  const timeline = {
    get seconds() {
      return clock >= x.lineAtMs ? [{ point: { t: x.secondT } }] : [];
    },
    get newestServerSampleMs() {
      return x.sampleT !== null && clock >= x.sampleAtMs
        ? x.sampleT
        : x.sampleT === null
          ? null
          : 0;
    },
  } as unknown as Timeline;
  const funnel = {
    sleep: (ms: number) => {
      clock += ms;
      return Promise.resolve();
    },
  } as unknown as AbortFunnel;
  return { timeline, funnel, waited: () => clock };
}

describe('rampSecondWritten', () => {
  it('waits for the ramp second’s line and a server sample after the ramp', async () => {
    // Ramp ended at 10.4 s: the line for second 10 is written at 600 ms, a sample at 10.9 s at 900.
    const w = world({ secondT: 10, lineAtMs: 600, sampleT: 10_900, sampleAtMs: 900 });
    await rampSecondWritten(w, 10_400);
    expect(w.waited()).toBe(900);
  });

  it('does not wait for a sample when the server is not sampled', async () => {
    const w = world({ secondT: 10, lineAtMs: 300, sampleT: null, sampleAtMs: 0 });
    await rampSecondWritten(w, 10_400);
    expect(w.waited()).toBe(300);
  });

  it('a line of an earlier second is not the ramp’s: gives up after 2.5 s', async () => {
    const w = world({ secondT: 9, lineAtMs: 0, sampleT: 10_900, sampleAtMs: 0 });
    await rampSecondWritten(w, 10_400);
    expect(w.waited()).toBe(2_500);
  });
});
