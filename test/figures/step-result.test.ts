/**
 * buildStepResult against collected data whose true counts are known (no sockets): the
 * figures it assembles from figures and the verdict they lead to.
 */
import { describe, expect, it } from 'vitest';
import { buildStepResult } from '../../src/figures/step-result.js';
import { kindStream } from '../../src/scenarios/types.js';
import type { SecondRecord } from '../../src/figures/timeline.js';
import { inputs, sends, W } from '../support/step-inputs.js';

describe('buildStepResult', () => {
  it('a step whose secondary kind fell behind is generator-bound and names that kind', () => {
    const b = sends(kindStream('broadcast', 0), 20, 100);
    // Presence: 20 due over the window, every one made 2.5 s late, so the last 14 after the
    // window's end + 1 s.
    const p = sends(kindStream('presence', 0), 20, 100, 2500);
    const step = buildStepResult(inputs(b, p));
    expect(step.messages).toMatchObject({ sent: 20, expected: 20, received: 20, lost: 0 });
    expect(step.generator.offered_by_part).toEqual({ broadcast: 1, presence: 0.3, joins: 1 });
    expect(step.generator.offered_ratio).toBe(0.3);
    expect(step.verdict).toBe('generator-bound');
    expect(step.verdict_reasons[0]).toContain('behind: presence 30.00%');
  });

  it('with every kind on schedule the same step is stable', () => {
    const step = buildStepResult(
      inputs(sends(kindStream('broadcast', 0), 20, 100), sends(kindStream('presence', 0), 20, 100)),
    );
    expect(step.generator.offered_by_part).toEqual({ broadcast: 1, presence: 1, joins: 1 });
    expect(step.verdict).toBe('stable');
  });
});

describe('a step cut short', () => {
  // 20 of each kind due every 100 ms over the 2 s steady window; the step was cut 1.5 s into it,
  // having made (on time) the 16 due by then.
  const cutAt = W.steadyStart + 1500;
  const cutShort = (phase: 'ramp' | 'steady', collected = true) => {
    const b = sends(kindStream('broadcast', 0), 16, 100);
    const p = sends(kindStream('presence', 0), 16, 100);
    const args = inputs(b, p);
    args.plan = {
      ...args.plan,
      broadcasts: { ...args.plan.broadcasts!, ratePerS: 10, count: 20 },
      presence: { ...args.plan.presence!, count: 20 },
    };
    args.window = { ...W, steadyEnd: cutAt, drainEnd: cutAt };
    args.complete = false;
    args.cut = { by: 'SIGINT', phase, collected, collect_wait_ms: 5000 };
    return args;
  };

  it('is judged over the part of its schedule that ran: never generator-bound for the rest', () => {
    const step = buildStepResult(cutShort('steady'));
    // Due by the horizon (the cut − 1 s): seqs 0…5 of each kind, all made and received.
    expect(step.generator.offered_by_part).toEqual({ broadcast: 1, presence: 1, joins: 1 });
    expect(step.messages).toMatchObject({ sent: 6, expected: 6, received: 6, lost: 0 });
    expect(step.verdict).toBe('stable');
    expect(step.complete).toBe(false);
    expect(step.cut_short).toEqual({
      by: 'SIGINT',
      phase: 'steady',
      collected: true,
      collect_wait_ms: 5000,
    });
    expect(step.verdict_reasons[0]).toBe(
      'incomplete (cut short by SIGINT in the steady window): figures cover only what ran',
    );
  });

  it('the same sends judged over the whole schedule (a step that ran whole) fell behind', () => {
    const args = cutShort('steady');
    args.complete = true;
    delete args.cut;
    expect(buildStepResult(args).verdict).toBe('generator-bound');
  });

  it('a message in flight at the cut is not lost: only those due by the horizon count', () => {
    const args = cutShort('steady');
    // The last 10 of the 16 made had no receipt yet when the step was cut.
    for (const r of args.collected[0].receipts.streams) r.count.fill(0, 6);
    const step = buildStepResult(args);
    expect(step.messages).toMatchObject({ expected: 6, received: 6, lost: 0 });
    expect(step.verdict).toBe('stable');
  });

  it('a ramp cut short: the connections it had not reached are no failures; inconclusive', () => {
    const args = cutShort('ramp');
    args.plan = { ...args.plan, connections: 6 };
    args.collected[0].connections = {
      ...args.collected[0].connections,
      openAtEnd: 5,
      joinedAtEnd: 2,
    };
    const step = buildStepResult(args);
    expect(step.connections.failed).toBe(0);
    expect(step.verdict).toBe('inconclusive');
    expect(step.verdict_reasons.slice(0, 2)).toEqual([
      'incomplete (cut short by SIGINT in the ramp): figures cover only what ran',
      'not measured at its load: 2 of 6 connections joined before the cut, 3 open and not answered yet',
    ]);
  });

  it('processes that did not answer the collect: what their per-second lines said, and why', () => {
    const args = cutShort('ramp', false);
    args.collected = [];
    const second = (t: number, open: number, joined: number, errors: Record<string, number>) =>
      ({
        point: { t, connections_open: open, joined, errors: 0, disconnects: 0 },
        workers: [{ sent: 0, received: 0, errorReasons: errors }],
      }) as unknown as SecondRecord;
    args.stepSeconds = [
      second(W.rampStart / 1000, 40, 10, { 'join timed out': 2 }),
      second(W.rampStart / 1000 + 1, 90, 25, { 'join timed out': 3 }),
    ];
    args.stepSeconds[0].point.errors = 2;
    args.stepSeconds[1].point.errors = 3;
    const step = buildStepResult(args);
    expect(step.verdict).toBe('inconclusive');
    expect(step.connections).toMatchObject({ joined: 25, open_at_end: 90, opened: 90, failed: 5 });
    expect(step.errors).toEqual({ 'join timed out': 5 });
    expect(step.cut_short?.collected).toBe(false);
    expect(step.verdict_reasons).toEqual([
      'incomplete (cut short by SIGINT in the ramp): figures cover only what ran',
      'the generator processes did not answer the collect within 5 s: connections and errors are those of their per-second lines (25 joined, 90 open at the last second); join latency, sends, delivery and latency were not measured',
    ]);
  });
});
