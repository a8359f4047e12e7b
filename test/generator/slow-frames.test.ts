import { describe, expect, it } from 'vitest';
import { ReceiveLedger } from '../../src/measure/ledger.js';
import { newMemberState } from '../../src/measure/member-state.js';
import { streamId } from '../../src/measure/stream-id.js';
import { EV } from '../../src/protocol/constants.js';
import type { Frame } from '../../src/protocol/frame-types.js';
import { isNullBroadcast, recordSlowFrame } from '../../src/generator/slow-frames.js';
import { newStepCounters } from '../../src/generator/step-counters.js';

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

  it('counts, by why, every frame that carried nothing rtcap uses', () => {
    const { ledger, member, counters } = setup();
    const envelope = (payload: unknown) => ({ type: 'broadcast', event: 'bench', payload });
    const frames = [
      // A null payload: bare, a Supabase envelope's, an absent one; of a change, of a diff.
      frame(EV.broadcast, null),
      frame(EV.broadcast, envelope(null)),
      frame(EV.broadcast, { type: 'broadcast', event: 'bench' }),
      frame(EV.postgresChanges, null),
      frame(EV.presenceDiff, null),
      // No stamp: a broadcast's stamp is read from its bytes, so one here has none; a row
      // without rtcap's body.
      frame(EV.broadcast, envelope({ x: 1 })),
      frame(EV.broadcast, 'text'),
      frame(EV.postgresChanges, { data: { record: { body: 'hello' } } }),
      // Events rtcap does not handle.
      frame('rtcap_unknown', { a: 1 }),
      frame('presence', null),
    ];
    for (const f of frames) expect(recordSlowFrame(member, f, 1000, ledger, counters)).toBe(false);
    expect(counters.frames).toEqual({
      nullPayload: 5,
      noStamp: 3,
      unknownEvent: 2,
      malformed: 0,
      oversized: 0,
    });
    expect(ledger.received).toBe(0);
  });

  it("counts none of the frames it uses, nor a diff of rtcap's own unstamped tracks and leaves", () => {
    const { ledger, member, counters } = setup();
    const join = { a: { metas: [{ online_at: '2026-01-01T00:00:00Z' }] } };
    const message = 'Subscribed to PostgreSQL';
    const frames = [
      frame(EV.presenceDiff, { joins: join, leaves: {} }),
      frame(EV.presenceDiff, { joins: {}, leaves: join }),
      frame(EV.presenceState, {}),
      frame(EV.system, { extension: EV.postgresChanges, status: 'ok', message }),
      frame(EV.system, { extension: 'system', status: 'ok', message: 'other' }),
    ];
    for (const f of frames) recordSlowFrame(member, f, 1000, ledger, counters);
    expect(counters.frames).toEqual({
      nullPayload: 0,
      noStamp: 0,
      unknownEvent: 0,
      malformed: 0,
      oversized: 0,
    });
  });

  it('a null broadcast: its payload, or its envelope payload, null or absent', () => {
    expect(isNullBroadcast(null)).toBe(true);
    expect(isNullBroadcast(undefined)).toBe(true);
    expect(isNullBroadcast({ type: 'broadcast', event: 'e', payload: null })).toBe(true);
    expect(isNullBroadcast({ type: 'broadcast', event: 'e' })).toBe(true);
    expect(isNullBroadcast({ type: 'broadcast', event: 'e', payload: {} })).toBe(false);
    // A Phoenix app's own payload (no envelope) is what it is.
    expect(isNullBroadcast({ payload: null })).toBe(false);
    expect(isNullBroadcast(0)).toBe(false);
    expect(isNullBroadcast('')).toBe(false);
  });
});
