/**
 * A run's result from its merged shards: the same step results, timeline, verdicts and
 * analysis a single coordinator would have built had it held every segment's processes —
 * figures/timeline merges the per-second lines, figures/step-result each step's
 * collections.
 */
import type { Profile } from '../profile/schema.js';
import type { RunResult, RunStatus } from '../result/result.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';
import { getScenario } from '../scenarios/index.js';
import { Timeline } from '../figures/timeline.js';
import { ALIGN_MARGIN_MS } from '../generator/segment.js';
import { clockOffsets } from './clock-offsets.js';
import type { ShardStep } from './format.js';
import type { MergedShards } from './merge.js';
import { shardStepResult } from './step-result.js';

export const CLOCKS_NOTE =
  "delivery counts use every receipt; latency (delivery, first-receive, fan-out span) uses only receipts whose sender ran on the receiver's machine (segment), both times on one clock, so it is exact whatever the clock offset between machines; each step's extra.latency_scope counts the receipts left out";

function phaseAt(
  steps: readonly ShardStep[],
  tMs: number,
): { step: number; phase: TimeseriesPoint['phase'] } {
  let at = steps[0];
  for (const s of steps) if (s.window.rampStart <= tMs) at = s;
  const w = at?.window;
  const phase: TimeseriesPoint['phase'] = !w
    ? 'ramp'
    : tMs < w.rampEnd
      ? 'ramp'
      : tMs < w.steadyStart
        ? 'warmup'
        : tMs < w.steadyEnd
          ? 'steady'
          : 'drain';
  return { step: at?.step ?? 0, phase };
}

/**
 * The run's timeline from the merged shards' per-second lines, replayed in order of their second
 * (so none comes late: each counts in its own second, as the step figures of a live run count it),
 * with the server samples a live run would have held by then.
 */
export function replayTimeline(
  merged: Pick<MergedShards, 'workers' | 'steps' | 'seconds' | 'resources'>,
  basis: { vcpus: number },
  onPoint: (p: TimeseriesPoint) => void,
): Timeline {
  let ctxT = 0;
  // The server as one segment sampled it (every segment samples the same server).
  const server = merged.resources.find((r) => r.serverSamples.length > 0);
  const timeline = new Timeline(
    merged.workers,
    () => phaseAt(merged.steps, ctxT),
    basis,
    (rec) => onPoint(rec.point),
  );
  const serverSamples = [...(server?.serverSamples ?? [])].sort((a, b) => a.t - b.t);
  let nextSample = 0;
  for (const s of merged.seconds) {
    ctxT = s.t * 1000;
    // As a live run has them: the samples taken up to about when the second's lines came in.
    while (nextSample < serverSamples.length && serverSamples[nextSample].t <= (s.t + 2) * 1000)
      timeline.addServerSample(serverSamples[nextSample++]);
    timeline.add(s);
  }
  timeline.flush();
  return timeline;
}

export function rebuildResult(
  merged: MergedShards,
  meta: {
    /**
     * The run's result as it started (run/run-result initialResult for merged.identity.run): the
     * rebuilt steps, segments and end are filled into it.
     */
    initial: RunResult;
    profile: Profile;
    builtin: boolean;
    targetUrl: string;
    finishedAt: string | null;
  },
): {
  result: RunResult;
  timeseries: TimeseriesPoint[];
} {
  const { profile } = meta;
  const scenario = getScenario(profile.scenario);
  const result = meta.initial;
  result.finished_at = meta.finishedAt;
  result.target.url = meta.targetUrl;
  result.generator.workers = merged.workers;
  result.segments = {
    run: merged.identity.run,
    count: merged.identity.segments,
    hosts: merged.hosts,
    workers: merged.workers,
    clocks: CLOCKS_NOTE,
    clock_offsets: {
      margin_ms: ALIGN_MARGIN_MS,
      segments: clockOffsets(merged.steps, merged.identity.segments),
    },
  };

  const timeseries: TimeseriesPoint[] = [];
  const basis = merged.resources.find((r) => r.serverBasis)?.serverBasis ?? profile.target.instance;
  const timeline = replayTimeline(merged, basis, (p) => timeseries.push(p));

  for (const s of merged.steps) {
    const plan = scenario.plan(profile, s.step);
    result.steps.push(
      shardStepResult(s, {
        profile,
        plan,
        timeline,
        resources: merged.resources,
        workers: merged.workers,
        segments: merged.identity.segments,
        builtin: meta.builtin,
        previousSteps: result.steps,
      }),
    );
  }
  return { result, timeseries };
}

/** The merged run's status: the worst of its segments'. */
export function mergedStatus(statuses: readonly string[]): RunStatus {
  for (const s of ['interrupted', 'aborted', 'running'] as const)
    if (statuses.includes(s)) return s === 'running' ? 'aborted' : s;
  return 'completed';
}
