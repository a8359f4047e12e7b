/**
 * The wall-clock schedule segments share (`--start-at`): every segment computes the same
 * ramp and steady start for every step from the profile alone, so their senders start when
 * every segment's connections have joined, and the union is the single-machine plan.
 * Each step gets its planned ramp, a margin for slow joins, warm-up, the steady window and
 * the longest drain, then the next starts.
 */
import { ALIGN_MARGIN_MS } from '../generator/segment.js';
import type { Profile } from '../profile/schema.js';
import type { StepPlan } from '../scenarios/types.js';

export { ALIGN_MARGIN_MS };

export interface StepTimes {
  rampStartMs: number;
  steadyStartMs: number;
}

export function segmentSchedule(
  startAtMs: number,
  profile: Pick<Profile, 'load'>,
  plans: ReadonlyArray<Pick<StepPlan, 'connections' | 'joinRatePerS' | 'durationMs'>>,
): StepTimes[] {
  const out: StepTimes[] = [];
  let t = startAtMs;
  let current = 0;
  for (const p of plans) {
    const rampMs =
      p.connections > current ? ((p.connections - current) / p.joinRatePerS) * 1000 : 0;
    const steadyStartMs = t + rampMs + ALIGN_MARGIN_MS + profile.load.warmup;
    out.push({ rampStartMs: t, steadyStartMs });
    t = steadyStartMs + p.durationMs + profile.load.drain + ALIGN_MARGIN_MS;
    current = p.connections;
  }
  return out;
}
