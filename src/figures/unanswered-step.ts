/**
 * A step cut short whose generator processes did not answer the collect in time (a loaded
 * machine, a stalled ramp): nothing they measured reached the coordinator but their per-second
 * lines. The step is kept with what those said — connections joined and open at its last second,
 * the most open, errors by reason, disconnects, sends and receipts counted — and says that
 * nothing else was measured; its verdict is inconclusive, never capacity. When only some did not
 * answer, the step is what the others reported (partlyAnsweredStep).
 */
import { sumOf } from '../util/sum.js';
import type { StepResult } from '../result/result.js';
import { isIncompleteReason } from '../model/format.js';
import type { StepInputs } from './step-inputs.js';
import { unansweredWords } from '../result/cut-short.js';

/** The errors of the processes' per-second lines over the step, by reason. */
function errorsOf(seconds: StepInputs['stepSeconds']): Record<string, number> {
  const out: Record<string, number> = {};
  for (const rec of seconds)
    for (const w of rec.workers)
      for (const [reason, n] of Object.entries(w.errorReasons ?? {}))
        out[reason] = (out[reason] ?? 0) + n;
  return out;
}

/** The errors of the processes' per-second lines over the step, by class, on top of `zero`. */
function classesOf(
  seconds: StepInputs['stepSeconds'],
  zero: StepResult['error_classes'],
): StepResult['error_classes'] {
  const out = { ...zero };
  for (const rec of seconds)
    for (const w of rec.workers)
      for (const [cls, n] of Object.entries(w.errorClasses ?? {}))
        out[cls as keyof typeof out] = (out[cls as keyof typeof out] ?? 0) + n;
  return out;
}

/** `step` (built from no collection) with what the per-second lines said, and why only that. */
export function unansweredStep(step: StepResult, args: StepInputs): StepResult {
  const seconds = args.stepSeconds.filter((r) => r.point.t * 1000 < args.window.drainEnd);
  const last = seconds[seconds.length - 1]?.point;
  const errors = errorsOf(seconds);
  const errorCount = sumOf(seconds, (r) => r.point.errors);
  const disconnects = sumOf(seconds, (r) => r.point.disconnects);
  const waitS = (args.cut?.collect_wait_ms ?? 0) / 1000;
  const joined = last?.joined ?? 0;
  const open = last?.connections_open ?? 0;
  const what =
    `the generator processes did not answer the collect within ${waitS} s: connections and errors ` +
    `are those of their per-second lines (${joined.toLocaleString('en-US')} joined, ` +
    `${open.toLocaleString('en-US')} open at the last second); join latency, sends, delivery and ` +
    'latency were not measured';
  return {
    ...step,
    verdict: 'inconclusive',
    verdict_reasons: [...step.verdict_reasons.filter(isIncompleteReason), what],
    connections: {
      ...step.connections,
      opened: Math.max(0, ...seconds.map((r) => r.point.connections_open)),
      joined,
      open_at_end: open,
      // Every error a process reported is a connection failing or one dropped.
      failed: Math.max(0, errorCount - disconnects),
      disconnected: disconnects,
    },
    messages: {
      ...step.messages,
      sent: sumOf(seconds, (r) => sumOf(r.workers, (w) => w.sent)),
      received: sumOf(seconds, (r) => sumOf(r.workers, (w) => w.received)),
    },
    delivery_rate: null,
    errors,
    error_classes: classesOf(seconds, step.error_classes),
  };
}

/**
 * `step` built from the processes that answered the collect while others did not: its figures
 * are theirs alone (nothing of a process that did not answer is counted, its sends and receipts
 * and the connections it held included), so it is inconclusive, never capacity, and names the
 * processes that did not answer.
 */
export function partlyAnsweredStep(step: StepResult, args: StepInputs): StepResult {
  const unanswered = args.cut?.unanswered ?? [];
  if (unanswered.length === 0) return step;
  const waitS = (args.cut?.collect_wait_ms ?? 0) / 1000;
  return {
    ...step,
    verdict: 'inconclusive',
    verdict_reasons: [
      ...step.verdict_reasons.filter(isIncompleteReason),
      unansweredWords(unanswered, waitS),
    ],
  };
}
