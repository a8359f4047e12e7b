/**
 * Write-only steps the load generator could not keep up with, for the capacity tests of a
 * search: the verdict's own words for the event-loop lag over its 50 ms limit, and a search
 * whose every try of its first value was such a step (result.sweep with its points).
 */
import type { RunResult, StepResult } from '../../src/result/result.js';
import { makeRun, makeStep } from '../fixtures/index.js';

/** Step `index` at `sendRate` messages/s, generator-bound: event-loop lag p99 `lagMs` > 50 ms. */
export function generatorBoundStep(index: number, sendRate: number, lagMs: number): StepResult {
  return makeStep(index, {
    params: { send_rate: sendRate, duration_s: 10 },
    verdict: 'generator-bound',
    verdict_reasons: [`generator event-loop lag p99 ${lagMs} ms > 50 ms`],
    generator: { event_loop_lag_p99_ms: lagMs },
  });
}

/**
 * A write-only send_rate search whose first value, 2,000/s, was generator-bound on each of its
 * `tries` (event-loop lag p99 559 ms): no step measured the server.
 */
export function firstValueGeneratorBoundSearch(tries = 2): RunResult {
  const steps = Array.from({ length: tries }, (_, i) => generatorBoundStep(i + 1, 2000, 559));
  return {
    ...makeRun('write-only', steps),
    sweep: {
      mode: 'search',
      driver: 'send_rate',
      points: steps.map((s) => ({ step: s.index, value: 2000 })),
    },
  } as unknown as RunResult;
}
