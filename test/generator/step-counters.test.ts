import { describe, expect, it } from 'vitest';
import {
  countDisconnect,
  countError,
  countJoin,
  countSnapshot,
  MAX_ERROR_REASONS,
  MAX_SECOND_ERROR_REASONS,
  newSecondCounters,
  newStepCounters,
} from '../../src/generator/step-counters.js';

describe('step counters', () => {
  it('a new step starts from zero in every counter, histograms included', () => {
    const k = newStepCounters();
    k.opened = 3;
    k.joinHist.recordValue(5);
    countError(k, newSecondCounters(), { class: 'server', reason: 'x' });
    const fresh = newStepCounters();
    expect(fresh.opened).toBe(0);
    expect(fresh.joinHist.totalCount).toBe(0);
    expect(fresh.errors.size).toBe(0);
    expect(fresh.errorClasses).toEqual({ server: 0, network: 0, generator: 0, protocol: 0 });
    // Nothing is shared between two steps' counters.
    expect(fresh.acks).not.toBe(k.acks);
    expect(fresh.sendStats).not.toBe(k.sendStats);
  });

  it('countError counts by class and reason in the step and the second', () => {
    const k = newStepCounters();
    const s = newSecondCounters();
    countError(k, s, { class: 'server', reason: 'join timeout' });
    countError(k, s, { class: 'server', reason: 'join timeout' });
    countError(k, s, { class: 'network', reason: 'ECONNRESET' });
    expect(k.errorClasses).toEqual({ server: 2, network: 1, generator: 0, protocol: 0 });
    expect(Object.fromEntries(k.errors)).toEqual({ 'join timeout': 2, ECONNRESET: 1 });
    expect(s.errors).toBe(3);
    expect(Object.fromEntries(s.errorReasons)).toEqual({ 'join timeout': 2, ECONNRESET: 1 });
    expect(s.errorClasses).toEqual({ server: 2, network: 1 });
  });

  it('reasons are bounded: past the cap they pool under their class, nothing is dropped', () => {
    const k = newStepCounters();
    const s = newSecondCounters();
    const n = MAX_ERROR_REASONS + 50;
    for (let i = 0; i < n; i++) countError(k, s, { class: 'protocol', reason: `bad frame ${i}` });
    expect(k.errors.size).toBe(MAX_ERROR_REASONS + 1);
    expect(k.errors.get('(other protocol errors)')).toBe(50);
    expect([...k.errors.values()].reduce((a, b) => a + b, 0)).toBe(n);
    expect(s.errorReasons.size).toBe(MAX_SECOND_ERROR_REASONS);
    expect(s.errors).toBe(n);
  });

  it("an error that is a frame rtcap could not read is counted in the step's frames too", () => {
    const k = newStepCounters();
    const s = newSecondCounters();
    countError(k, s, {
      class: 'protocol',
      reason: 'malformed frame (not JSON): x',
      frame: 'malformed',
    });
    countError(k, s, {
      class: 'protocol',
      reason: 'malformed frame (not JSON): y',
      frame: 'malformed',
    });
    countError(k, s, { class: 'protocol', reason: 'frame too large (1009)', frame: 'oversized' });
    countError(k, s, { class: 'server', reason: 'join timeout' });
    expect(k.frames).toEqual({
      nullPayload: 0,
      noStamp: 0,
      unknownEvent: 0,
      malformed: 2,
      oversized: 1,
    });
    expect(k.errorClasses.protocol).toBe(3);
    // A new step counts its own.
    expect(newStepCounters().frames).not.toBe(k.frames);
    expect(newStepCounters().frames.malformed).toBe(0);
  });

  it('countSnapshot sums bytes and entries and keeps the largest', () => {
    const k = newStepCounters();
    countSnapshot(k, 100, 2);
    countSnapshot(k, 300, 5);
    expect(k.snapshots).toEqual({ count: 2, bytes: 400, maxBytes: 300, entries: 7 });
  });

  it("countJoin counts a step's first attempts toward its join rate, a reconnect as a rejoin", () => {
    const k = newStepCounters();
    const s = newSecondCounters();
    // A first attempt of this step (2), answered at 1_050 ms, scheduled at 1_000, reply 20 ms.
    countJoin(k, s, { scheduledMs: 1_000, attempt: 0, step: 2 }, 2, 1_050, 20);
    expect(k.rampJoins).toMatchObject({ joined: 1, firstReplyMs: 1_050, lastReplyMs: 1_050 });
    expect(k.joinHist.totalCount).toBe(1);
    expect(k.joinHist.maxValue).toBeGreaterThanOrEqual(50);
    // A first attempt of an earlier step, and a reconnect: neither in this step's join rate.
    countJoin(k, s, { scheduledMs: 1_000, attempt: 0, step: 1 }, 2, 1_100, 20);
    countJoin(k, s, { scheduledMs: 1_000, attempt: 3, step: 2 }, 2, 1_200, 20);
    expect(k.rampJoins.joined).toBe(1);
    expect(k.rejoins).toBe(1);
    // A connection no longer held: its reply still counts, with no join latency.
    countJoin(k, s, undefined, 2, 1_300, 20);
    expect(k.joined).toBe(4);
    expect(s.joins).toBe(4);
    expect(k.joinHist.totalCount).toBe(3);
    expect(k.joinReplyHist.totalCount).toBe(4);
  });

  it('countDisconnect counts a lost member in the step and the second', () => {
    const k = newStepCounters();
    const s = newSecondCounters();
    countDisconnect(k, s);
    countDisconnect(k, s);
    expect(k.disconnected).toBe(2);
    expect(s.disconnects).toBe(2);
  });
});
