/**
 * Mixed load's figures (StepResult.extra): each component's latency, delivery and ledger in
 * this step, beside its latest solo step's latency.
 */
import { steadySeconds } from '../measure/steady-seconds.js';
import type { MixedComponent, MixedExtra } from '../result/extra.js';
import { KIND_OF, MIXED_COMPONENTS, type MixedComponentName } from '../scenarios/mixed.js';
import { r1, r6 } from '../util/round.js';
import { latencySummary } from './extra-common.js';
import type { StepContext } from './step-context.js';

/** The latest earlier step that ran `name` alone, and its latency. */
function soloLatency(
  ctx: StepContext,
  name: MixedComponentName,
): MixedComponent['solo_latency_ms'] {
  for (let i = ctx.previous.length - 1; i >= 0; i--) {
    const prev = ctx.previous[i];
    if (prev.params.components !== name) continue;
    const comp = ((prev.extra as Partial<MixedExtra>).components ?? []).find(
      (x) => x.name === name,
    );
    if (comp) return comp.latency_ms;
  }
  return null;
}

export function mixedExtra(ctx: StepContext): MixedExtra {
  const names = String(ctx.plan.params.components ?? '')
    .split('+')
    .filter((n): n is MixedComponentName => (MIXED_COMPONENTS as readonly string[]).includes(n));
  const steadyS = steadySeconds(ctx.window);
  const solo = names.length === 1;
  const components = names.map((name) => {
    const k = ctx.kinds[KIND_OF[name]];
    const f = k?.figures;
    return {
      name,
      // Every receipt from the scheduled send (or insert) time: rooms make "first receipt" one of a
      // few.
      latency_ms: latencySummary(k?.deliveryHistogram ?? null) ?? {
        p50: null,
        p95: null,
        p99: null,
      },
      solo_latency_ms: solo ? null : soloLatency(ctx, name),
      delivery_rate: f && f.expected > 0 ? r6(f.received / f.expected) : null,
      delivered_per_s: f ? r1(f.received / steadyS) : null,
      sent: f?.sent ?? 0,
      expected: f?.expected ?? 0,
      received: f?.received ?? 0,
      lost: f?.lost ?? 0,
    } satisfies Required<MixedComponent>;
  });
  return { components } satisfies Required<MixedExtra>;
}
