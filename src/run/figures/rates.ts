/** The step's rates (StepResult.rates). */
import type { MessageFigures } from '../../measure/aggregate.js';
import { ackedPerS } from '../../measure/ack-figures.js';
import type { StepResult } from '../../report/result.js';
import type { TrafficKind } from '../../scenarios/types.js';
import type { SecondRecord } from '../timeline.js';
import { max, mean, r1, r3 } from './round.js';
import { steadySeconds, type StepWindow } from './window.js';

export function stepRates(args: {
  figures: Pick<MessageFigures, 'sent' | 'received'>;
  primaryKind: TrafficKind;
  window: StepWindow;
  /** Whole seconds of the steady window. */
  steadySeconds: readonly SecondRecord[];
  /** Seconds of the whole step (ramp to drain). */
  stepSeconds: readonly SecondRecord[];
  /** Measured first joins per second of the ramp (measure/join-figures). */
  joinsPerS: number | null;
  /** Measured reconnects per second (null when the step does not reconnect). */
  rejoinsPerS: number | null;
  ackRequested: boolean;
}): StepResult['rates'] {
  const steadyS = steadySeconds(args.window);
  const steadyDelivered = args.steadySeconds.map((s) => s.point.delivered_per_s);
  const steadyBytes = args.steadySeconds.map((s) => s.workers.reduce((a, x) => a + x.bytes, 0));
  return {
    sent_per_s: r1(args.figures.sent / steadyS),
    acked_per_s: ackedPerS(args.ackRequested, args.steadySeconds),
    delivered_per_s: args.primaryKind === 'broadcast' && steadyDelivered.length ? r1(mean(steadyDelivered)!) : r1(args.figures.received / steadyS),
    joins_per_s: args.joinsPerS,
    rejoins_per_s: args.rejoinsPerS,
    delivered_per_s_60s_max: max(args.stepSeconds.map((s) => s.point.delivered_per_s_60s)),
    egress_mib_per_s: steadyBytes.length ? r3(mean(steadyBytes)! / 1048576) : null,
  };
}
