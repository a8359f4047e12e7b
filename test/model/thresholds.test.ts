import { describe, expect, it } from 'vitest';
import { ThresholdError, evaluateOnRun, evaluateOnStep, evaluateThresholds, parseThreshold } from '../../src/model/thresholds.js';
import { loadRun, makeStep } from '../fixtures/index.js';

describe('parseThreshold', () => {
  it('parses metric, operator and number', () => {
    expect(parseThreshold('p95_ms < 200')).toEqual({ expression: 'p95_ms < 200', metric: 'p95_ms', op: '<', value: 200 });
    expect(parseThreshold('delivery_rate>=0.999')).toMatchObject({ op: '>=', value: 0.999 });
    expect(parseThreshold('errors == 0')).toMatchObject({ metric: 'errors', op: '==', value: 0 });
    expect(parseThreshold('delivered_per_s > 10_000')).toMatchObject({ value: 10_000 });
    expect(parseThreshold('delivery_rate >= 99.9%').value).toBeCloseTo(0.999, 12);
    expect(parseThreshold('cpu_pct <= 70%').value).toBe(70);
  });

  it('names the expression and the problem when it cannot parse', () => {
    expect(() => parseThreshold('p95 < 200')).toThrow(ThresholdError);
    expect(() => parseThreshold('p95 < 200')).toThrow(/^threshold "p95 < 200": unknown metric "p95"; did you mean p95_ms/);
    expect(() => parseThreshold('p95_ms << 200')).toThrow(/^threshold "p95_ms << 200": expected "<metric> <op> <number>"/);
    expect(() => parseThreshold('p95_ms < fast')).toThrow(/^threshold "p95_ms < fast"/);
    expect(() => parseThreshold('p95_ms < 200%')).toThrow(/"%" only applies to ratio or _pct metrics, not p95_ms/);
    try {
      parseThreshold('latency < 1');
    } catch (e) {
      expect((e as ThresholdError).expression).toBe('latency < 1');
    }
  });
});

describe('evaluate', () => {
  it('on a step', () => {
    const s = makeStep(0, { latency_ms: { p95: 250 } });
    expect(evaluateOnStep('p95_ms < 200', s)).toEqual({ step: 0, actual: 250, pass: false });
    expect(evaluateOnStep('errors == 0', s).pass).toBe(true);
  });

  it('a figure that was not measured fails (null is not 0)', () => {
    const s = makeStep(0, { server: { cpu_pct: null } });
    expect(evaluateOnStep('cpu_pct < 80', s)).toEqual({ step: 0, actual: null, pass: false });
  });

  it('on a run: every step must pass; the summary names the failing steps', () => {
    const run = loadRun('seed-002-s1.2-deliveries');
    const r = evaluateOnRun('p95_ms < 200', run);
    expect(r.pass).toBe(false);
    expect(r.summary).toBe('p95_ms < 200: fail — step 4: 4500, step 5: 52000');
    expect(r.worst?.step).toBe(5);
    expect(evaluateOnRun('delivery_rate >= 0.999', run).summary).toBe('delivery_rate >= 0.999: pass (worst: step 0: 1)');
  });

  it('all thresholds of a profile decide one pass/fail', () => {
    const run = loadRun('seed-002-s4-join-rate');
    const r = evaluateThresholds(['errors == 0', 'join_rate <= 200'], run);
    expect(r.pass).toBe(false);
    expect(r.results.map((x) => x.pass)).toEqual([false, true]);
    expect(() => evaluateThresholds(['errors == 0', 'bogus > 1'], run)).toThrow(/threshold "bogus > 1"/);
  });

  it('a run with no steps fails', () => {
    expect(evaluateOnRun('errors == 0', { steps: [] }).pass).toBe(false);
  });
});
