/**
 * A run's result from its merged shards: the same step results, timeline, verdicts and
 * analysis a single coordinator would have built had it held every segment's processes —
 * run/timeline merges the per-second lines, run/step-result each step's collections.
 */
import type { Profile } from '../profile/schema.js';
import type { RunResult, RunStatus, TimeseriesPoint } from '../report/result.js';
import { getScenario } from '../scenarios/index.js';
import { buildStepResult } from '../run/step-result.js';
import { initialResult } from '../run/run-result.js';
import { Timeline } from '../run/timeline.js';
import type { ShardStep } from './format.js';
import type { MergedShards } from './merge.js';

export const CLOCKS_NOTE =
  'delivery counts use every receipt; latency (delivery, first-receive, fan-out span) uses only receipts whose sender ran on the receiver\'s machine (segment), both times on one clock, so it is exact whatever the clock offset between machines; each step\'s extra.latency_scope counts the receipts left out';

function phaseAt(steps: readonly ShardStep[], tMs: number): { step: number; phase: TimeseriesPoint['phase'] } {
  let at = steps[0];
  for (const s of steps) if (s.window.rampStart <= tMs) at = s;
  const w = at?.window;
  const phase: TimeseriesPoint['phase'] = !w ? 'ramp' : tMs < w.rampEnd ? 'ramp' : tMs < w.steadyStart ? 'warmup' : tMs < w.steadyEnd ? 'steady' : 'drain';
  return { step: at?.step ?? 0, phase };
}

export function rebuildResult(merged: MergedShards, meta: { profile: Profile; resolved: unknown; profilePath: string | null; builtin: boolean; targetUrl: string; startedAt: string; finishedAt: string | null }): {
  result: RunResult;
  timeseries: TimeseriesPoint[];
} {
  const { profile } = meta;
  const scenario = getScenario(profile.scenario);
  const result = initialResult({ runId: merged.identity.run, startedAt: new Date(meta.startedAt), profile, profilePath: meta.profilePath, redactedProfile: meta.resolved, builtin: meta.builtin, serverCpus: null, generatorCpus: null });
  result.finished_at = meta.finishedAt;
  result.target.url = meta.targetUrl;
  result.generator.workers = merged.workers;
  result.segments = { run: merged.identity.run, count: merged.identity.segments, hosts: merged.hosts, workers: merged.workers, clocks: CLOCKS_NOTE };

  const timeseries: TimeseriesPoint[] = [];
  let ctxT = 0;
  const timeline = new Timeline(merged.workers, () => phaseAt(merged.steps, ctxT), profile.target.instance, (rec) => timeseries.push(rec.point));
  for (const s of merged.seconds) {
    ctxT = s.t * 1000;
    timeline.add(s);
  }
  timeline.flush();

  for (const s of merged.steps) {
    const plan = scenario.plan(profile, s.step);
    const w = s.window;
    result.steps.push(
      buildStepResult({
        profile,
        plan,
        collected: s.collected,
        inserts: s.inserts ?? [],
        insertStats: s.insertStats ?? null,
        window: w,
        steadySeconds: timeline.between(w.steadyStart, w.steadyEnd),
        stepSeconds: timeline.between(w.rampStart, w.drainEnd + 1000),
        serverSamples: [],
        serverSource: null,
        workers: merged.workers,
        complete: s.complete,
        builtin: meta.builtin,
        previousSteps: result.steps.slice(),
        segments: merged.identity.segments,
      }),
    );
  }
  return { result, timeseries };
}

/** The merged run's status: the worst of its segments'. */
export function mergedStatus(statuses: readonly string[]): RunStatus {
  for (const s of ['interrupted', 'aborted', 'running'] as const) if (statuses.includes(s)) return s === 'running' ? 'aborted' : s;
  return 'completed';
}
