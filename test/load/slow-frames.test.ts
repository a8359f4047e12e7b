import { describe, expect, it } from 'vitest';
import { newMemberState, ReceiveLedger, streamId } from '../../src/measure/ledger.js';
import { EV } from '../../src/protocol/constants.js';
import type { Frame } from '../../src/protocol/frame.js';
import { recordSlowFrame } from '../../src/load/slow-frames.js';
import { newStepCounters } from '../../src/load/step-counters.js';

function frame(event: string, payload: unknown): Frame {
  return { joinRef: '1', ref: null, topic: 'realtime:t', event, payload };
}

function setup() {
  const ledger = new ReceiveLedger();
  ledger.beginStep(0);
  const member = newMemberState();
  member.joinedAtMs = 1;
  return { ledger, member, counters: newStepCounters() };
}

describe('the receive slow path', () => {
  it('records the stamps a presence diff carries in its metas', () => {
    const { ledger, member, counters } = setup();
    const stream = streamId(0, 100_000);
    const metas = [
      { rtcap_s: stream, rtcap_q: 0, rtcap_t: 900 },
      { rtcap_s: stream, rtcap_q: 1, rtcap_t: 950 },
    ];
    const f = frame(EV.presenceDiff, { joins: { a: { metas } }, leaves: {} });
    expect(recordSlowFrame(member, f, 1000, ledger, counters)).toBe(false);
    expect(ledger.received).toBe(2);
  });

  it('counts a presence_state snapshot by its JSON size and keys', () => {
    const { ledger, member, counters } = setup();
    const payload = { a: { metas: [] }, b: { metas: [] } };
    recordSlowFrame(member, frame(EV.presenceState, payload), 1000, ledger, counters);
    const bytes = JSON.stringify(payload).length;
    expect(counters.snapshots).toEqual({ count: 1, bytes, maxBytes: bytes, entries: 2 });
  });

  it('records a Postgres change with its commit latency', () => {
    const { ledger, member, counters } = setup();
    member.subscribedAtMs = 2;
    const stream = streamId(0, 200_000);
    const commit = new Date(1_700_000_000_000).toISOString();
    const record = { body: `${stream}:0`, sent_at: 1_699_999_999_990 };
    const payload = { data: { record, commit_timestamp: commit } };
    const f = frame(EV.postgresChanges, payload);
    recordSlowFrame(member, f, 1_700_000_000_030, ledger, counters);
    expect(ledger.received).toBe(1);
    // Recorded in µs: receipt 30 ms after the commit.
    expect(counters.commitHist.totalCount).toBe(1);
    expect(Math.round(counters.commitHist.maxValue / 1000)).toBe(30);
  });

  it('marks the member subscribed on the first Postgres Changes confirmation only', () => {
    const { ledger, member, counters } = setup();
    const message = 'Subscribed to PostgreSQL';
    const ok = frame(EV.system, { extension: EV.postgresChanges, status: 'ok', message });
    expect(recordSlowFrame(member, ok, 1234, ledger, counters)).toBe(true);
    expect(member.subscribedAtMs).toBe(1234);
    expect(counters.subscribed).toBe(1);
    expect(recordSlowFrame(member, ok, 2000, ledger, counters)).toBe(false);
    expect(counters.subscribed).toBe(1);
    const failed = frame(EV.system, { extension: EV.postgresChanges, status: 'error' });
    expect(recordSlowFrame(newMemberState(), failed, 1, ledger, counters)).toBe(false);
  });
});
