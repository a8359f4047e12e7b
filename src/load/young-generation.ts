/**
 * The V8 young generation of the generator processes when a run only holds connections
 *. Node's default lets each semi-space grow to 16 MB; a process ramping
 * thousands of connections grows it to the maximum and keeps it: ~32 MB of RSS that, in a
 * process of 12,500 idle connections, is ~2.6 KB per connection of nothing but nursery. A
 * small young generation means more frequent scavenges, which cost the receive path CPU, so it
 * is only chosen when the plan has no receive path: every step of a plan known in advance
 * sends nothing, inserts nothing and tracks no presence on join. A run with traffic, or a
 * sweep (whose next step is decided as it goes), keeps Node's default.
 */
import type { StepPlan } from '../scenarios/types.js';

/**
 * The semi-space cap of an idle-only run (MB): measured at 12,500 idle connections
 * (docs/PERFORMANCE.md, "Memory per idle connection").
 */
export const IDLE_MAX_SEMI_SPACE_MB = 2;

/** True when no step of the plan makes a generator process receive or send traffic. */
export function idleOnly(plans: readonly StepPlan[]): boolean {
  if (plans.length === 0) return false;
  return plans.every((p) => {
    if (rateOf(p.broadcasts) > 0 || rateOf(p.presence) > 0 || rateOf(p.inserts) > 0) return false;
    for (let c = 0; c < p.connections; c++) {
      const j = p.joinConfigOf(c);
      if (j.presenceTrackOnJoin || (j.postgresChanges?.length ?? 0) > 0) return false;
    }
    return true;
  });
}

function rateOf(t: { ratePerS: number } | null): number {
  return t === null ? 0 : t.ratePerS;
}

/**
 * The generator processes' V8 flags for this run: the capped young generation when the plan
 * is idle-only and fixed in advance (`dynamicSteps`: a sweep), else none.
 */
export function youngGenerationArgs(plans: readonly StepPlan[], dynamicSteps: boolean): string[] {
  return !dynamicSteps && idleOnly(plans)
    ? [`--max-semi-space-size=${IDLE_MAX_SEMI_SPACE_MB}`]
    : [];
}
