/**
 * The one way a step's result is built from what was collected: a
 * run's coordinator calls it with the ShardStep of its own processes (the very ShardStep its
 * shard records), `rtcap merge` with the ShardStep every segment's processes merged into
 * (./merge.ts). Both then go through figures/step-result with the same inputs: the collected
 * parts, the inserts, the timeline's seconds, and the resources sampled beside the processes
 * (server, its gauges, the generator hosts).
 */
import type { Profile } from '../profile/schema.js';
import type { StepResult } from '../result/result.js';
import type { StepPlan } from '../scenarios/types.js';
import { buildStepResult } from '../figures/step-result.js';
import { hostFigures } from '../figures/host.js';
import { linkLatencyShare } from '../figures/link-share.js';
import type { Timeline } from '../figures/timeline.js';
import type { ShardResources, ShardStep } from './format.js';

export interface ShardStepContext {
  profile: Profile;
  plan: StepPlan;
  timeline: Pick<Timeline, 'between'>;
  /** One per segment (a single run: its own); the server's from the first that sampled it. */
  resources: readonly ShardResources[];
  workers: number;
  segments: number;
  builtin: boolean;
  previousSteps: readonly StepResult[];
}

/**
 * Of several generator hosts, the one busiest over the step's steady window: the one that would
 * make it generator-bound.
 */
function busiestHost(
  resources: readonly ShardResources[],
  s: ShardStep,
): ShardResources | undefined {
  let best: ShardResources | undefined;
  let bestCpu = -1;
  for (const r of resources) {
    const cpu = hostFigures(r.hostSamples, s.window)?.cpu_pct ?? -1;
    if (best === undefined || cpu > bestCpu) [best, bestCpu] = [r, cpu];
  }
  return best;
}

/**
 * The generator processes' RSS before any connection, over every segment; null unless every segment
 * recorded it.
 */
function idleRssMb(resources: readonly ShardResources[]): number | null {
  if (resources.length === 0 || resources.some((r) => typeof r.generatorIdleRssMb !== 'number'))
    return null;
  return resources.reduce((a, r) => a + r.generatorIdleRssMb!, 0);
}

export function shardStepResult(s: ShardStep, ctx: ShardStepContext): StepResult {
  const w = s.window;
  const server = ctx.resources.find((r) => r.serverSamples.length > 0) ?? ctx.resources[0];
  const host = busiestHost(ctx.resources, s);
  const step = buildStepResult({
    profile: ctx.profile,
    plan: ctx.plan,
    collected: s.collected,
    inserts: s.inserts ?? [],
    insertStats: s.insertStats ?? null,
    window: w,
    steadySeconds: ctx.timeline.between(w.steadyStart, w.steadyEnd),
    generatorIdleRssMb: idleRssMb(ctx.resources),
    stepSeconds: ctx.timeline.between(w.rampStart, w.drainEnd + 1000),
    serverSamples: server?.serverSamples ?? [],
    serverIdleRssMb: server?.serverIdleRssMb ?? null,
    serverSource: server?.serverSource ?? null,
    ...(server?.serverBasis ? { serverBasis: server.serverBasis } : {}),
    serverGauges: server?.gaugeSamples ?? [],
    ...(host ? { hostSamples: host.hostSamples } : {}),
    workers: ctx.workers,
    complete: s.complete,
    ...(s.cut ? { cut: s.cut } : {}),
    builtin: ctx.builtin,
    previousSteps: ctx.previousSteps.slice(),
    segments: ctx.segments,
  });
  // Several generator hosts: generator.host is the busiest; each one's figures are here.
  if (ctx.resources.length > 1)
    step.extra.generator_hosts = ctx.resources.map((r) => hostFigures(r.hostSamples, w));
  // An emulated client link: its known share of the latency beside the server's part.
  const link = ctx.profile.generator.link;
  if (link) step.extra.link_latency = linkLatencyShare(link, ctx.plan.primaryKind, step.latency_ms);
  return step;
}
