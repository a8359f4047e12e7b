/**
 * A sweep's runner hooks: before each step, the planner's decision (sweep/plan), the time
 * budget and the recovery probe (recovery/probe); after it, the marks result.json keeps
 * of the step (StepSearchMark: recovered or not, samples short of min_samples, superseded).
 * Everything decided lands in the sweep record, so a resumed sweep reads it back.
 */
import type { Profile, Step, Sweep } from '../profile/schema.js';
import type { RunResult, StepResult } from '../result/result.js';
import {
  probeFailure,
  waitForRecovery,
  type ProbeSample,
  type ProbeTarget,
  type RecoveryRecord,
} from '../recovery/probe.js';
import { PROBE_PATH_WORDS } from '../recovery/paths.js';
import {
  historyOf,
  kneeRecord,
  type SweepPoint,
  type SweepRecord,
  type SweepSamples,
} from './record.js';
import { evidenceOf, planNextSweepStep } from './plan.js';
import type { SweepHistoryItem } from './history.js';
import { settledVerdict } from './settled.js';
import { fmtDriver, maxScaleOf, sweepStepSpec, type SpecContext } from './spec.js';

export interface SweepStepsArgs {
  profile: Profile;
  cfg: Sweep;
  template: Step;
  start: number;
  record: SweepRecord;
  say: (line: string) => void;
  /** Time budget in ms (null: none) and what earlier attempts of this sweep spent of it. */
  budgetMs: number | null;
  spentBeforeMs: number;
  now?: () => number;
}

/** The percentile a step's verdict rests on and its sample count; null when none is judged. */
export function judgedSamples(
  step: StepResult,
  scenario: string,
): { judged: SweepSamples['judged']; count: number } | null {
  if (scenario === 'join-rate')
    return { judged: 'join p95', count: step.connections.join_latency_ms.count };
  const n = step.latency_ms?.count ?? 0;
  return n > 0 ? { judged: 'latency p95', count: n } : null;
}

/**
 * Drivers that change how many members the probe's path fans out to at rest (one bench topic's
 * members, a table's subscribers): a probe's round trip there grows with them, so the baseline
 * follows the topology (baselineOf).
 */
const TOPOLOGY_DRIVERS: ReadonlySet<Sweep['driver']> = new Set([
  'connections',
  'subscribers',
  'members',
  'rooms',
]);

/**
 * What "recovered" means: the probe taken right after a stable step that stands as evidence,
 * once nothing of it arrived any more (its members still joined: the path at rest as the steps
 * load it). `step` is that stable step. For a rate (send, insert, update, join rate, payload)
 * it is the first such step; for a driver that changes the members the probe fans out to, the
 * one of the highest value at or below the last step's, so that a probe at 8,000 members is not
 * held to a round trip measured at 2,000 (the fan-out of its own message at rest, not a backlog).
 */
export function baselineOf(
  record: SweepRecord,
  history: readonly SweepHistoryItem[],
): { step: number; sample: ProbeSample } | null {
  const last = history[history.length - 1];
  const byTopology = TOPOLOGY_DRIVERS.has(record.driver) && last !== undefined;
  let best: { step: number; value: number; sample: ProbeSample } | null = null;
  for (const h of evidenceOf(history)) {
    if (h.verdict !== 'stable') continue;
    const rec = record.points.find((p) => p.step === h.step + 1)?.recovery;
    const probe = rec?.probes[rec.probes.length - 1];
    if (rec?.recovered !== true || !probe || probe.error !== null || probe.received === 0) continue;
    if (!byTopology) return { step: h.step, sample: probe };
    if (h.value <= last.value && (best === null || h.value > best.value))
      best = { step: h.step, value: h.value, sample: probe };
  }
  return best && { step: best.step, sample: best.sample };
}

export class SweepSteps {
  private readonly ctx: SpecContext;
  private readonly maxScale: number;
  private readonly t0: number;
  private readonly now: () => number;
  /** The run so far, as the last call of next() saw it (annotate marks its earlier steps). */
  private run: RunResult | null = null;

  constructor(private readonly a: SweepStepsArgs) {
    this.ctx = { baseJoinRate: a.template.join_rate ?? a.profile.load.join_rate };
    this.maxScale = maxScaleOf(a.cfg, a.template);
    this.now = a.now ?? Date.now;
    this.t0 = this.now();
  }

  get specContext(): SpecContext {
    return this.ctx;
  }

  /** A point's step spec (a resumed sweep rebuilds its kept steps' specs from them). */
  specOf(value: number, phase: SweepRecord['points'][number]['phase'], scale = 1): Step {
    return sweepStepSpec(this.a.template, this.a.cfg.driver, { value, phase, scale }, this.ctx);
  }

  private stop(r: RunResult, reason: string, kind: SweepRecord['stop_kind']): null {
    this.a.record.stop_reason = reason;
    this.a.record.stop_kind = kind;
    this.a.say(`sweep: stop — ${reason}`);
    return null;
  }

  /** The budget's verdict before a step: null to go on, else why the sweep stops. */
  private budgetStop(r: RunResult, nextScale: number): string | null {
    const budget = this.a.budgetMs;
    if (budget === null) return null;
    const spent = this.a.spentBeforeMs + (this.now() - this.t0);
    const last = r.steps[r.steps.length - 1];
    const lastScale = this.a.record.points.find((p) => p.step === last?.index)?.scale ?? 1;
    const lastWall = last
      ? Math.max(0, last.window.drain_end - last.window.ramp_start) * (nextScale / lastScale)
      : 0;
    if (spent < budget && spent + lastWall <= budget) return null;
    const s = (ms: number) => `${Math.round(ms / 1000)} s`;
    return `budget spent: ${s(spent)} of ${s(budget)} used${spent < budget ? `, and the next step would take about ${s(lastWall)}` : ''}`;
  }

  async next(
    r: RunResult,
    target: ProbeTarget & { sleep: (ms: number) => Promise<void> },
  ): Promise<Step | null> {
    this.run = r;
    const { cfg, record } = this.a;
    const history = historyOf(record, r.steps, this.maxScale);
    record.knee = kneeRecord(history);
    const decision = planNextSweepStep(cfg, history, this.a.start, this.maxScale);
    if ('stop' in decision && decision.kind === 'not-recovered') this.neverRecovered(r);
    if ('stop' in decision) return this.stop(r, decision.stop, decision.kind);
    const scale = decision.scale ?? 1;
    const budget = this.budgetStop(r, scale);
    if (budget !== null) {
      const knee =
        record.knee?.safe && record.knee.first_unsafe
          ? `; knee between ${fmtDriver(cfg.driver, record.knee.safe.value)} and ${fmtDriver(cfg.driver, record.knee.first_unsafe.value)} (not narrowed to sweep.resolution)`
          : '';
      return this.stop(r, `${budget}${knee}`, 'budget-spent');
    }
    const index = r.steps.length + 1;
    if (decision.phase === 'lengthen') this.supersede(r, index, scale);
    let recovery: RecoveryRecord | undefined;
    if (!cfg.values && cfg.recovery.probe) {
      recovery = await waitForRecovery({
        target,
        cfg: cfg.recovery,
        baseline: baselineOf(record, history),
        first: history.length === 0,
        sleep: target.sleep,
      });
      if (recovery.path_down) return this.notRecovered(r, recovery, false);
      if (recovery.recovered === false || recovery.wait_ms > 2_000)
        this.a.say(
          `sweep: recovery probe before step ${index} — ${recovery.note ?? `back to the baseline after ${(recovery.wait_ms / 1000).toFixed(1)} s`}`,
        );
    }
    record.points = record.points.filter((p) => p.step < index);
    record.points.push({
      step: index,
      value: decision.value,
      phase: decision.phase,
      ...(scale !== 1 ? { scale } : {}),
      ...(recovery ? { recovery } : {}),
    });
    this.a.say(
      `sweep: step ${index} — ${cfg.driver} ${fmtDriver(cfg.driver, decision.value)} (${decision.phase}${scale !== 1 ? `, ${scale}× longer` : ''})`,
    );
    return this.specOf(decision.value, decision.phase, scale);
  }

  /**
   * The path the search loads did not come back within max_wait after the last step: no step
   * after it could measure the server, so the search stops there, saying which path and after
   * which value (the row keeps what the steps before showed).
   */
  private notRecovered(r: RunResult, recovery: RecoveryRecord, lower: boolean): null {
    const last = r.steps[r.steps.length - 1];
    this.recordNotRecovered(last?.index ?? 0, recovery, lower);
    const point = this.a.record.points.find((p) => p.step === last?.index);
    const path = recovery.path ?? 'broadcast';
    const after = point ? `${this.a.cfg.driver} ${fmtDriver(this.a.cfg.driver, point.value)}` : '';
    const why = probeFailure(recovery.probes[recovery.probes.length - 1], path);
    return this.stop(
      r,
      `${PROBE_PATH_WORDS[path]} did not recover after ${after} (step ${last?.index ?? 0}): ${why}, probed for ${(recovery.wait_ms / 1000).toFixed(1)} s (sweep.recovery.max_wait); the search stopped there`,
      'not-recovered',
    );
  }

  /** result.sweep.not_recovered: the step after which the path did not come back. */
  private recordNotRecovered(afterStep: number, recovery: RecoveryRecord, lower: boolean): void {
    const point = this.a.record.points.find((p) => p.step === afterStep);
    this.a.record.not_recovered = {
      after_step: afterStep,
      after_value: point?.value ?? null,
      after_text: point ? `${this.a.cfg.driver} ${fmtDriver(this.a.cfg.driver, point.value)}` : '',
      path: recovery.path ?? 'broadcast',
      wait_s: Math.round(recovery.wait_ms / 100) / 10,
      recovery,
      ...(lower ? { lower_bound: true } : {}),
    };
  }

  /**
   * The planner stopped because the server was not back to its baseline before the last runs of
   * a value (sweep.recovery.reruns spent): the cause is the step before the first of them.
   */
  private neverRecovered(r: RunResult): void {
    const points = this.a.record.points.filter((p) => r.steps.some((s) => s.index === p.step));
    let i = points.length - 1;
    while (i > 0 && points[i].recovery?.recovered === false) i--;
    const last = points[points.length - 1]?.recovery;
    if (last) this.recordNotRecovered(points[i]?.step ?? 0, last, true);
  }

  /** The step before was short of min_samples: the one about to run replaces it. */
  private supersede(r: RunResult, index: number, scale: number): void {
    const last = r.steps[r.steps.length - 1];
    const point = this.a.record.points.find((p) => p.step === last.index);
    const action = `run again ${scale}× as long as load.steps.0 (step ${index})`;
    if (point?.samples) point.samples.action = action;
    last.search = {
      ...(last.search ?? { recovered: null, recovery_wait_ms: null, notes: [] }),
      superseded_by: index,
    };
    last.search.notes.push(
      `${point?.samples?.judged ?? 'percentile'} on ${point?.samples?.count ?? 0} samples, below sweep.min_samples ${this.a.cfg.min_samples}: ${action}`,
    );
  }

  /** The marks of a step just measured: its recovery and its samples. */
  annotate(step: StepResult): void {
    const point = this.a.record.points.find((p) => p.step === step.index);
    if (!point) return;
    const notes: string[] = [];
    if (point.recovery?.note) notes.push(point.recovery.note);
    const samples = judgedSamples(step, this.a.profile.scenario);
    if (samples && !this.a.cfg.values) this.markSamples(step, point, samples, notes);
    const rec = point.recovery;
    const probe = rec?.probes[rec.probes.length - 1];
    step.search = {
      recovered: rec?.recovered ?? null,
      recovery_wait_ms: rec?.wait_ms ?? null,
      ...(rec && probe
        ? {
            recovery: {
              baseline_p50_ms: rec.baseline?.p50_ms ?? null,
              probe_p50_ms: probe.p50_ms,
              tolerance_ms: rec.tolerance_ms ?? null,
              waited_ms: rec.wait_ms,
              still_arriving: probe.still_arriving ?? null,
            },
          }
        : {}),
      ...(rec?.recovered === false ? { inconclusive: true } : {}),
      notes,
    };
    if (point.phase === 'confirm' && step.verdict === 'stable') this.confirmed(step, point.value);
  }

  /**
   * The step's judged samples against sweep.min_samples: at the longest allowed, judged on too
   * few; or short but settled (sweep/settled: the missing samples cannot change the verdict), so
   * not run again longer, and the step says why.
   */
  private markSamples(
    step: StepResult,
    point: SweepPoint,
    samples: NonNullable<ReturnType<typeof judgedSamples>>,
    notes: string[],
  ): void {
    const min = this.a.cfg.min_samples;
    const short = samples.count < min;
    const atCap = (point.scale ?? 1) >= this.maxScale;
    const settled =
      short && !atCap && samples.judged === 'latency p95'
        ? settledVerdict(step, this.a.profile.slo, min)
        : null;
    point.samples = {
      ...samples,
      min,
      action:
        short && atCap
          ? `at the longest allowed (${Number(this.maxScale.toPrecision(3))}× load.steps.0, sweep.max_duration): judged on too few samples`
          : settled !== null
            ? `not run again longer: ${settled}`
            : null,
      ...(settled !== null ? { settled } : {}),
    };
    if (short && atCap)
      notes.push(
        `${samples.judged} on ${samples.count} samples, below sweep.min_samples ${min}; the step is at its longest (sweep.max_duration)`,
      );
    if (settled !== null)
      notes.push(
        `${samples.judged} on ${samples.count} samples, below sweep.min_samples ${min}, not run again longer: ${settled}`,
      );
  }

  /**
   * A failure below a stable value ran again stable (`confirm`): the earlier run of that value
   * no longer stands for it (model/knee leaves a superseded step out), and says why.
   */
  private confirmed(step: StepResult, value: number): void {
    const { driver } = this.a.cfg;
    const earlier = this.a.record.points
      .filter((p) => p.step < step.index && p.value === value)
      .map((p) => this.run?.steps.find((s) => s.index === p.step))
      .find((s) => s !== undefined && (s.verdict === 'degraded' || s.verdict === 'broken'));
    if (!earlier) return;
    earlier.search = {
      ...(earlier.search ?? { recovered: null, recovery_wait_ms: null, notes: [] }),
      superseded_by: step.index,
    };
    earlier.search.notes.push(
      `${earlier.verdict} at ${driver} ${fmtDriver(driver, value)} while a higher value was stable; run again (step ${step.index}), stable: this run does not stand for the value`,
    );
  }
}
