/**
 * Each scenario's own figures of a step (StepResult.extra, typed in result/extra.ts), one file
 * each beside the other figures; broadcast-public has none of its own.
 */
import type { ScenarioExtraMap } from '../result/extra.js';
import { broadcastPrivateExtra } from './extra-broadcast-private.js';
import { joinRateExtra } from './extra-join-rate.js';
import { mixedExtra } from './extra-mixed.js';
import { payloadSizeExtra } from './extra-payload-size.js';
import { postgresChangesExtra } from './extra-postgres-changes.js';
import { presenceExtra } from './extra-presence.js';
import { writeOnlyExtra } from './extra-write-only.js';
import type { StepContext } from './step-context.js';

type ExtraFunctions = {
  [S in keyof ScenarioExtraMap]?: (ctx: StepContext) => ScenarioExtraMap[S];
};

const EXTRAS: ExtraFunctions = {
  'broadcast-private': broadcastPrivateExtra,
  'payload-size': payloadSizeExtra,
  'join-rate': joinRateExtra,
  presence: presenceExtra,
  'postgres-changes': postgresChangesExtra,
  'write-only': writeOnlyExtra,
  mixed: mixedExtra,
};

/** The figures `scenario` adds to a step's extra; none for a scenario without its own. */
export function scenarioExtra(scenario: string, ctx: StepContext): Record<string, unknown> {
  const f = EXTRAS[scenario as keyof ScenarioExtraMap] as ((c: StepContext) => object) | undefined;
  return f ? { ...f(ctx) } : {};
}
