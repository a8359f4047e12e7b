import { describe, expect, it } from 'vitest';
import { ReceiveLedger } from '../../src/measure/ledger.js';
import { decodeHistogram, recordMs } from '../../src/measure/histogram.js';
import { stepCollected } from '../../src/generator/step-collection.js';
import { newStepCounters } from '../../src/generator/step-counters.js';

describe("a step's collection", () => {
  it('copies what the process counted, with its membership and histograms', () => {
    const k = newStepCounters();
    const counts = { opened: 5, joined: 4, failed: 1, disconnected: 1, lateJoins: 2 };
    Object.assign(k, counts, { scheduledJoins: 5, reconnects: 1, rejoins: 1, subscribed: 3 });
    k.sendStats.scheduled = 10;
    k.sendStats.unsent = 1;
    k.errors.set('boom', 2);
    k.errorClasses.server = 2;
    k.acks.ok = 7;
    k.presenceTracks.unacked = 2;
    k.presenceTracks.untracked = 1;
    k.sendBufferPeakBytes = 4096;
    Object.assign(k.frames, { nullPayload: 3, noStamp: 2, unknownEvent: 1, malformed: 4 });
    recordMs(k.joinHist, 15);
    recordMs(k.ackHist, 3);
    recordMs(k.ackHist, 4);
    const ledger = new ReceiveLedger();
    ledger.beginStep(1);
    const membership = { 'realtime:t': [{ joinedAtMs: 1, leftAtMs: Infinity }] };
    const c = stepCollected({
      worker: 1,
      step: 1,
      segment: 0,
      counters: k,
      receipts: ledger.snapshot(),
      sends: [],
      sent: { sent: 8, failed: 1, late: 2 },
      connections: { membership, openAtEnd: 3, joinedAtEnd: 2 },
      lagP99Ms: 12,
    });
    expect(c).toMatchObject({
      type: 'collected',
      worker: 1,
      step: 1,
      segment: 0,
      sendStats: { scheduled: 10, sent: 8, failed: 1, late: 2, unsent: 1 },
      membership,
      connections: {
        ...counts,
        openAtEnd: 3,
        joinedAtEnd: 2,
        scheduledJoins: 5,
        reconnects: 1,
        subscribed: 3,
      },
      joins: { rejoins: 1 },
      errors: { boom: 2 },
      acks: { ok: 7 },
      presenceTracks: { unanswered: 2, untracked: 1 },
      sendBufferPeakBytes: 4096,
      lagP99Ms: 12,
      frames: { nullPayload: 3, noStamp: 2, unknownEvent: 1, malformed: 4, oversized: 0 },
    });
    expect(c.errorClasses.server).toBe(2);
    expect(decodeHistogram(c.joinLatencyHistogram).totalCount).toBe(1);
    expect(decodeHistogram(c.ackLatencyHistogram).totalCount).toBe(2);
    // Copies, not the live counters the next step goes on counting into.
    k.acks.ok++;
    expect(c.acks.ok).toBe(7);
    k.frames.noStamp++;
    expect(c.frames?.noStamp).toBe(2);
  });
});
