import { describe, expect, it } from 'vitest';
import { buildStepResult } from '../../src/figures/step-result.js';
import { unansweredStep } from '../../src/figures/unanswered-step.js';
import type { SecondRecord } from '../../src/figures/timeline.js';
import { kindStream } from '../../src/scenarios/types.js';
import { inputs, sends, W } from '../support/step-inputs.js';

// Refusals are the server's errors, drops the network's (as the generator classes them).
const classesOf = (errors: Record<string, number>) => ({
  ...(errors.refused ? { server: errors.refused } : {}),
  ...(errors.dropped ? { network: errors.dropped } : {}),
});

const second = (t: number, open: number, joined: number, errors: Record<string, number>) =>
  ({
    point: {
      t,
      connections_open: open,
      joined,
      errors: Object.values(errors).reduce((a, b) => a + b, 0),
      disconnects: errors.dropped ?? 0,
    },
    workers: [{ sent: 3, received: 2, errorReasons: errors, errorClasses: classesOf(errors) }],
  }) as unknown as SecondRecord;

describe('a step whose processes did not answer the collect', () => {
  it('keeps what their per-second lines said, up to the cut, and says nothing else was measured', () => {
    const args = inputs(
      sends(kindStream('broadcast', 0), 0, 100),
      sends(kindStream('presence', 0), 0, 100),
    );
    args.collected = [];
    args.complete = false;
    args.window = { ...W, drainEnd: W.rampStart + 2_000 };
    args.cut = {
      by: 'ramp did not finish within 70 s',
      phase: 'ramp',
      collected: false,
      collect_wait_ms: 20_000,
    };
    args.stepSeconds = [
      second(W.rampStart / 1000, 10, 8, { refused: 1 }),
      second(W.rampStart / 1000 + 1, 12, 9, { refused: 1, dropped: 1 }),
      // After the cut: not the step's.
      second(W.rampStart / 1000 + 2, 99, 99, { refused: 50 }),
    ];
    const step = unansweredStep(
      buildStepResult({ ...args, cut: { ...args.cut, collected: true } }),
      args,
    );
    expect(step.verdict).toBe('inconclusive');
    expect(step.connections).toMatchObject({
      joined: 9,
      open_at_end: 12,
      opened: 12,
      failed: 2,
      disconnected: 1,
    });
    expect(step.errors).toEqual({ refused: 2, dropped: 1 });
    // Classed from the lines too: not the zeros of a step with no collection.
    expect(step.error_classes).toEqual({ server: 2, network: 1, generator: 0, protocol: 0 });
    expect(step.messages).toMatchObject({ sent: 6, received: 4 });
    expect(step.delivery_rate).toBeNull();
    expect(step.verdict_reasons).toEqual([
      'incomplete (cut short in the ramp: ramp did not finish within 70 s): figures cover only what ran',
      'the generator processes did not answer the collect within 20 s: connections and errors are those of their per-second lines (9 joined, 12 open at the last second); join latency, sends, delivery and latency were not measured',
    ]);
  });
});
