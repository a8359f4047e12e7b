/**
 * Which receipts a split run's latency figures stand on: only those whose sender ran
 * on the receiver's machine, since machines' clocks differ; delivery counts use every receipt.
 * This says how many were left out of latency, so a reader can judge the sample.
 */
import type { MessageFigures } from '../measure/aggregate.js';
import type { StepCollected } from '../generator/ipc.js';
import { sumOf } from '../util/sum.js';

export interface LatencyScopeFigures {
  /** Every latency figure uses receipts whose sender ran on the same machine (segment) only. */
  rule: 'same-machine receipts';
  /**
   * Receipts (every one counted as delivered) whose sender ran on another machine: not in delivery
   * latency.
   */
  receipts_other_machine: number;
  /** Receipts in the delivery latency histograms. */
  receipts_same_machine: number;
  /**
   * Primary-kind messages received only on other machines than the sender's: counted, not in
   * first-receive latency.
   */
  messages_only_elsewhere: number;
}

export function latencyScope(
  collected: ReadonlyArray<Pick<StepCollected, 'receipts'>>,
  primary: Pick<MessageFigures, 'messagesOnlyElsewhere'>,
): LatencyScopeFigures {
  const other = sumOf(collected, (c) => c.receipts.otherMachine ?? 0);
  return {
    rule: 'same-machine receipts',
    receipts_other_machine: other,
    receipts_same_machine: sumOf(collected, (c) => c.receipts.received) - other,
    messages_only_elsewhere: primary.messagesOnlyElsewhere,
  };
}
