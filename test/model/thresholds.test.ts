import { describe, expect, it } from 'vitest';
import {
  ThresholdError,
  abortReason,
  evaluateOnRun,
  evaluateOnStep,
  evaluateThresholds,
  parseThreshold,
} from '../../src/model/thresholds.js';
import { loadRun, makeStep } from '../fixtures/index.js';

describe('parseThreshold', () => {
  it('parses metric, operator and number', () => {
    expect(parseThreshold('p95_ms < 200')).toEqual({
      expression: 'p95_ms < 200',
      figure: { kind: 'step', metric: 'p95_ms', steps: [], scenarios: [] },
      op: '<',
      value: 200,
    });
    expect(parseThreshold('delivery_rate>=0.999')).toMatchObject({ op: '>=', value: 0.999 });
    expect(parseThreshold('errors == 0')).toMatchObject({
      figure: { metric: 'errors' },
      op: '==',
      value: 0,
    });
    expect(parseThreshold('delivered_per_s > 10_000')).toMatchObject({ value: 10_000 });
    expect(parseThreshold('delivery_rate >= 99.9%').value).toBeCloseTo(0.999, 12);
    expect(parseThreshold('cpu_pct <= 70%').value).toBe(70);
  });

  it('names the expression and the problem when it cannot parse', () => {
    expect(() => parseThreshold('p95 < 200')).toThrow(ThresholdError);
    expect(() => parseThreshold('p95 < 200')).toThrow(
      /^threshold "p95 < 200": unknown metric "p95"; did you mean p95_ms/,
    );
    expect(() => parseThreshold('p95_ms << 200')).toThrow(
      /^threshold "p95_ms << 200": expected "<metric> <op> <number>"/,
    );
    expect(() => parseThreshold('p95_ms < fast')).toThrow(/^threshold "p95_ms < fast"/);
    expect(() => parseThreshold('p95_ms < 200%')).toThrow(
      /"%" only applies to ratio or _pct metrics, not p95_ms/,
    );
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
    expect(evaluateOnRun('delivery_rate >= 0.999', run).summary).toBe(
      'delivery_rate >= 0.999: pass (worst: step 0: 1)',
    );
  });

  it('all thresholds of a profile decide one pass/fail', () => {
    const run = loadRun('seed-002-s4-join-rate');
    const r = evaluateThresholds(['errors == 0', 'join_rate <= 200'], run);
    expect(r.pass).toBe(false);
    expect(r.results.map((x) => x.pass)).toEqual([false, true]);
    expect(() => evaluateThresholds(['errors == 0', 'bogus > 1'], run)).toThrow(
      /threshold "bogus > 1"/,
    );
  });

  it('a run with no steps fails', () => {
    expect(evaluateOnRun('errors == 0', { steps: [] }).pass).toBe(false);
  });
});

describe('selectors and capacity rows', () => {
  const run = {
    scenario: 'broadcast-public',
    steps: [
      makeStep(1, { label: 'warm', latency_ms: { p95: 50 } }),
      makeStep(2, { label: '20k conns', latency_ms: { p95: 150 } }),
      makeStep(3, { label: 'peak', latency_ms: { p95: 400 } }),
    ],
  };

  it('parses step (by number or label) and scenario selectors', () => {
    expect(parseThreshold('p95_ms{step:3} < 200').figure).toEqual({
      kind: 'step',
      metric: 'p95_ms',
      steps: [{ by: 'index', index: 3 }],
      scenarios: [],
    });
    expect(parseThreshold('p95_ms{step:"20k conns", scenario:presence} < 200').figure).toEqual({
      kind: 'step',
      metric: 'p95_ms',
      steps: [{ by: 'label', label: '20k conns' }],
      scenarios: ['presence'],
    });
    expect(parseThreshold('capacity.public_connections >= 18000')).toMatchObject({
      figure: { kind: 'capacity', row: 'public_connections' },
      op: '>=',
      value: 18000,
    });
    expect(() => parseThreshold('p95_ms{stage:3} < 200')).toThrow(
      /unknown selector "stage" \(known: step, scenario\)/,
    );
    expect(() => parseThreshold('capacity.public_conns >= 1')).toThrow(
      /unknown capacity row "public_conns" \(known: public_connections, /,
    );
  });

  it('judges only the selected steps', () => {
    expect(evaluateOnRun('p95_ms < 200', run).pass).toBe(false);
    expect(evaluateOnRun('p95_ms{step:1,step:2} < 200', run)).toMatchObject({
      pass: true,
      steps: [{ step: 1 }, { step: 2 }],
    });
    expect(evaluateOnRun('p95_ms{step:"20k conns"} < 100', run).summary).toBe(
      'p95_ms{step:"20k conns"} < 100: fail — step 2: 150',
    );
    expect(evaluateOnRun('p95_ms{step:peak} < 500', run).pass).toBe(true);
  });

  it('a step selector that matches nothing fails; a scenario selector that does not match is not applicable', () => {
    expect(evaluateOnRun('p95_ms{step:9} < 200', run)).toMatchObject({
      pass: false,
      summary: 'p95_ms{step:9} < 200: fail — no step matches p95_ms{step:9}',
    });
    expect(evaluateOnRun('p95_ms{scenario:presence} < 1', run)).toMatchObject({
      pass: true,
      applicable: false,
    });
    expect(evaluateOnRun('p95_ms{scenario:broadcast-public} < 1', run)).toMatchObject({
      pass: false,
      applicable: true,
    });
  });

  it('a capacity row: its value, null fails, no table fails', () => {
    expect(
      evaluateOnRun('capacity.public_connections >= 18000', {
        ...run,
        capacity: { public_connections: 21_200 },
      }),
    ).toMatchObject({ pass: true, actual: 21_200 });
    expect(
      evaluateOnRun('capacity.public_connections >= 18000', {
        ...run,
        capacity: { public_connections: 17_000 },
      }).summary,
    ).toBe('capacity.public_connections >= 18000: fail (17000)');
    expect(
      evaluateOnRun('capacity.public_connections >= 1', {
        ...run,
        capacity: { public_connections: null },
      }).summary,
    ).toBe('capacity.public_connections >= 1: fail (the row has no value)');
    expect(evaluateOnRun('capacity.public_connections >= 1', run).summary).toBe(
      'capacity.public_connections >= 1: fail — no capacity table to judge it on',
    );
  });
});

describe('abort_on_fail', () => {
  const steps = [
    makeStep(1, { latency_ms: { p95: 50 } }),
    makeStep(2, { latency_ms: { p95: 400 } }),
  ];

  it('names the first failing abort_on_fail threshold; plain thresholds never stop a run', () => {
    expect(abortReason(['p95_ms < 200'], { steps })).toBeNull();
    expect(
      abortReason(
        [
          { threshold: 'errors == 0', abort_on_fail: true },
          { threshold: 'p95_ms < 200', abort_on_fail: true },
        ],
        { steps },
      ),
    ).toBe('threshold failed with abort_on_fail: p95_ms < 200: fail — step 2: 400');
  });

  it('waits for the step a selector names, and ignores capacity rows and other scenarios', () => {
    expect(
      abortReason([{ threshold: 'p95_ms{step:3} < 200', abort_on_fail: true }], { steps }),
    ).toBeNull();
    expect(
      abortReason([{ threshold: 'p95_ms{scenario:presence} < 200', abort_on_fail: true }], {
        steps,
        scenario: 'broadcast-public',
      }),
    ).toBeNull();
    expect(
      abortReason([{ threshold: 'capacity.public_connections >= 1', abort_on_fail: true }], {
        steps,
      }),
    ).toBeNull();
    expect(
      abortReason([{ threshold: 'p95_ms{step:2} < 200', abort_on_fail: false }], { steps }),
    ).toBeNull();
  });
});
