import { describe, expect, it } from 'vitest';
import {
  countError,
  countSnapshot,
  MAX_ERROR_REASONS,
  MAX_SECOND_ERROR_REASONS,
  newSecondCounters,
  newStepCounters,
} from '../../src/load/step-counters.js';

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

  it('countSnapshot sums bytes and entries and keeps the largest', () => {
    const k = newStepCounters();
    countSnapshot(k, 100, 2);
    countSnapshot(k, 300, 5);
    expect(k.snapshots).toEqual({ count: 2, bytes: 400, maxBytes: 300, entries: 7 });
  });
});
