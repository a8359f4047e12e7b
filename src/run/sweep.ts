/**
 * `rtcap sweep` (issue 5 §1): one run whose steps vary one driver of `load.steps.0` — an
 * explicit list of values, or a search: geometric growth until K consecutive broken steps
 * (or sweep.max, or a generator that cannot go further), then bisection between the last
 * stable and the first broken value (model/knee.ts) down to sweep.resolution.
 *
 * The next value is a pure function of the steps measured so far (`planNextSweepStep`), so a
 * sweep resumed from its result.json continues exactly where it stopped: the kept steps are
 * handed to the runner as `previousSteps` and the search goes on from them.
 */
import { readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { findKnee, nextBisectionValue, type Knee } from '../model/knee.js';
import { fmtInt } from '../model/format.js';
import type { Profile, Step, Sweep, SweepDriver } from '../profile/schema.js';
import type { RunResult, StepResult, Verdict } from '../result/result.js';
import { runBenchmark, type RunOptions, type RunOutcome } from './runner.js';
import { isJudged } from '../model/verdict.js';

export type SweepPhase = 'explicit' | 'grow' | 'retry' | 'bisect';

export interface SweepPoint {
  /** StepResult.index of the step that ran this value. */
  step: number;
  value: number;
  phase: SweepPhase;
}

export interface SweepKneePoint {
  step: number;
  value: number;
}

/** What result.json keeps of a sweep (`result.sweep`), enough to resume it and to report its knee. */
export interface SweepRecord {
  driver: SweepDriver;
  mode: 'values' | 'search';
  points: SweepPoint[];
  /** Why the sweep ended; null while it runs. */
  stop_reason: string | null;
  knee: {
    last_stable: SweepKneePoint | null;
    first_broken: SweepKneePoint | null;
    /** Highest stable value below the first degraded or broken one. */
    safe: SweepKneePoint | null;
    first_unsafe: SweepKneePoint | null;
  } | null;
  /** ISO times this sweep was resumed at. */
  resumed_at: string[];
}

export type SweepResult = RunResult & { sweep?: SweepRecord };

export class SweepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SweepError';
  }
}

export interface SweepHistoryItem {
  value: number;
  verdict: Verdict;
  phase: SweepPhase;
  step: number;
}

export type SweepDecision = { value: number; phase: SweepPhase } | { stop: string };

const INTEGER_DRIVERS: ReadonlySet<SweepDriver> = new Set(['connections', 'payload_bytes', 'members', 'subscribers']);

/** Integer drivers to whole numbers; rates and shares to 3 significant figures. */
export function roundDriver(driver: SweepDriver, v: number): number {
  if (INTEGER_DRIVERS.has(driver)) return Math.max(1, Math.round(v));
  return Number(v.toPrecision(3));
}

export function fmtDriver(driver: SweepDriver, v: number): string {
  return INTEGER_DRIVERS.has(driver) ? fmtInt(v) : String(v);
}

/**
 * The knee along the sweep's driver, with knee.ts's rules (generator-bound steps skipped, a
 * value both stable and broken is not safe). findKnee reads a driver through STEP_METRICS;
 * the value each step ran at is put where `connections_target` reads it, so every driver
 * (members, update share, ...) gets the same rules as the capacity table.
 */
export function sweepKnee(history: readonly SweepHistoryItem[]): Knee {
  const probes = history.map((h) => ({ index: h.step, verdict: h.verdict, params: { connections: h.value } }) as unknown as StepResult);
  return findKnee(probes, 'connections_target');
}

function trailing<T>(xs: readonly T[], pred: (x: T) => boolean): number {
  let n = 0;
  for (let i = xs.length - 1; i >= 0 && pred(xs[i]); i--) n++;
  return n;
}

/** The next step of a sweep, or why it stops. Pure: the same history always gives the same answer. */
export function planNextSweepStep(cfg: Sweep, history: readonly SweepHistoryItem[], startValue: number): SweepDecision {
  const d = cfg.driver;
  const f = (v: number) => fmtDriver(d, v);
  if (history.length >= cfg.max_steps) return { stop: `sweep.max_steps (${cfg.max_steps}) reached` };
  const brokenRun = trailing(history, (h) => h.verdict === 'broken');

  if (cfg.values) {
    if (brokenRun >= cfg.stop_after_broken) return { stop: `${brokenRun} consecutive broken steps (sweep.stop_after_broken ${cfg.stop_after_broken})` };
    if (history.length >= cfg.values.length) return { stop: `all ${cfg.values.length} values run` };
    return { value: cfg.values[history.length], phase: 'explicit' };
  }

  const max = cfg.max!;
  if (history.length === 0) return { value: roundDriver(d, Math.min(startValue, max)), phase: 'grow' };
  const last = history[history.length - 1];
  let generatorLimit: number | null = null;
  if (last.verdict === 'generator-bound') {
    const runs = trailing(history, (h) => h.value === last.value && h.verdict === 'generator-bound');
    if (runs <= cfg.generator_bound_retries) return { value: last.value, phase: 'retry' };
    generatorLimit = last.value;
  }

  const tried = new Set(history.map((h) => h.value));
  const inBisection = history.some((h) => h.phase === 'bisect');
  const highest = Math.max(...history.map((h) => h.value));
  const judged = history.filter((h) => isJudged(h.verdict));
  if (judged.length > 0 && judged.every((h) => h.verdict === 'broken') && history[0].verdict === 'broken') {
    return { stop: `the first value, ${d} ${f(history[0].value)}, was already broken: lower sweep.start` };
  }

  const growthOver = inBisection || generatorLimit !== null || highest >= max || brokenRun >= cfg.stop_after_broken;
  if (!growthOver) {
    const next = roundDriver(d, Math.min(highest * cfg.factor, max));
    if (next > highest) return { value: next, phase: 'grow' };
  }

  const knee = sweepKnee(history);
  const found = (k: Knee) =>
    k.last_stable && k.first_broken
      ? `knee between ${d} ${f(k.last_stable.value)} (stable, step ${k.last_stable.step}) and ${f(k.first_broken.value)} (broken, step ${k.first_broken.step})`
      : '';
  if (generatorLimit !== null && inBisection) {
    return { stop: `generator-bound at ${d} ${f(generatorLimit)} during bisection${found(knee) ? `; ${found(knee)}` : ''}` };
  }
  if (knee.bracket) {
    // Between the last stable and the first broken value; when that midpoint already ran (a
    // degraded step), narrow the stable → degraded transition just above the last stable.
    const [lo, hi] = knee.bracket;
    const degradedAbove = judged.filter((h) => h.verdict === 'degraded' && h.value > lo && h.value < hi).map((h) => h.value);
    const brackets: Array<[number, number]> = [knee.bracket];
    if (degradedAbove.length) brackets.push([lo, Math.min(...degradedAbove)]);
    let narrowEnough = true;
    for (const b of brackets) {
      const mid = nextBisectionValue({ ...knee, bracket: b }, cfg.resolution);
      if (mid === null) continue;
      narrowEnough = false;
      const v = roundDriver(d, mid);
      if (v > b[0] && v < b[1] && !tried.has(v)) return { value: v, phase: 'bisect' };
    }
    const latency = degradedAbove.length ? `; latency first: degraded from ${f(Math.min(...degradedAbove))}` : '';
    return {
      stop: narrowEnough
        ? `${found(knee)}${latency}, within sweep.resolution ${cfg.resolution * 100} %`
        : `${found(knee)}${latency}; the bracket cannot be narrowed further (its midpoints ran already)`,
    };
  }
  if (generatorLimit !== null) {
    return { stop: `generator-bound at ${d} ${f(generatorLimit)} after ${cfg.generator_bound_retries + 1} tries, with no broken step: the generator, not the server, limits this sweep (use --workers or another machine)` };
  }
  if (!knee.last_stable) return { stop: `no stable step at any value up to ${f(highest)}` };
  return { stop: `reached sweep.max (${d} ${f(max)}) with no broken step: no knee at or below ${f(max)}` };
}

/** The driver's value in a step spec (or the profile default it falls back to). */
export function templateValue(profile: Profile, template: Step, driver: SweepDriver): number | undefined {
  switch (driver) {
    case 'connections':
    case 'subscribers':
      return template.connections;
    case 'send_rate':
      return template.send_rate;
    case 'join_rate':
      return template.join_rate ?? profile.load.join_rate;
    case 'payload_bytes':
      return template.payload_bytes ?? profile.load.payload_bytes;
    case 'members':
      return template.members;
    case 'update_share':
      return template.update_share;
  }
}

/** load.steps.0 with the driver set to `value`. Members with rooms given keep connections = rooms × members. */
export function sweepStepSpec(template: Step, driver: SweepDriver, value: number, phase: SweepPhase): Step {
  const spec: Step = { ...template, label: `${driver} ${fmtDriver(driver, value)} (${phase})` };
  switch (driver) {
    case 'connections':
    case 'subscribers':
      spec.connections = value;
      break;
    case 'send_rate':
      spec.send_rate = value;
      break;
    case 'join_rate':
      spec.join_rate = value;
      break;
    case 'payload_bytes':
      spec.payload_bytes = value;
      break;
    case 'members':
      spec.members = value;
      if (template.rooms) spec.connections = template.rooms * value;
      break;
    case 'update_share':
      spec.update_share = value;
      break;
  }
  return spec;
}

/** The most connections any step of this sweep can ask for, to size the generator up front. */
export function sweepMaxConnections(cfg: Sweep, template: Step): number {
  const top = cfg.values ? Math.max(...cfg.values) : cfg.max!;
  if (cfg.driver === 'connections' || cfg.driver === 'subscribers') return Math.ceil(top);
  if (cfg.driver === 'members' && template.rooms) return template.rooms * Math.ceil(top);
  return template.connections;
}

function historyOf(record: SweepRecord, steps: readonly StepResult[]): SweepHistoryItem[] {
  const out: SweepHistoryItem[] = [];
  for (const s of steps) {
    const p = record.points.find((x) => x.step === s.index);
    if (p) out.push({ value: p.value, verdict: s.verdict, phase: p.phase, step: s.index });
  }
  return out;
}

export function kneeRecord(history: readonly SweepHistoryItem[]): SweepRecord['knee'] {
  const k = sweepKnee(history);
  const pt = (p: { step: number; value: number } | null) => (p ? { step: p.step, value: p.value } : null);
  return { last_stable: pt(k.last_stable), first_broken: pt(k.first_broken), safe: pt(k.safe), first_unsafe: pt(k.first_unsafe) };
}

/** The sweep's knee from a result (null when the result is not a sweep's). */
export function sweepKneeOf(result: SweepResult): SweepRecord['knee'] {
  return result.sweep ? kneeRecord(historyOf(result.sweep, result.steps)) : null;
}

/**
 * The steps thresholds judge in a sweep: those at or below the knee's last stable value (a
 * sweep goes past the knee on purpose). Not a sweep, or no broken step: every step.
 */
export function stepsUpToKnee(result: SweepResult): StepResult[] {
  if (!result.sweep) return result.steps;
  const knee = sweepKneeOf(result);
  if (!knee?.first_broken) return result.steps;
  const limit = knee.last_stable?.value ?? -Infinity;
  return historyOf(result.sweep, result.steps)
    .filter((h) => h.value <= limit)
    .map((h) => result.steps.find((s) => s.index === h.step)!)
    .filter(Boolean);
}

export interface SweepOptions extends Omit<RunOptions, 'nextStep' | 'maxConnections' | 'previousSteps' | 'runId'> {
  /** A sweep's result.json to continue (its directory must be `outDir`). */
  resumeFrom?: SweepResult;
  /** Called with the sweep's decision before each step and when it stops. */
  onDecision?: (line: string) => void;
}

/** Resolves the sweep section and its first value; throws SweepError for a profile that cannot sweep. */
export function sweepConfig(profile: Profile): { cfg: Sweep; template: Step; start: number } {
  const cfg = profile.sweep;
  if (!cfg) throw new SweepError('the profile has no `sweep:` section (driver, and values or max): see docs/PROFILE.md');
  const template = profile.load.steps[0];
  const start = cfg.values ? cfg.values[0] : (cfg.start ?? templateValue(profile, template, cfg.driver));
  if (start === undefined) throw new SweepError(`sweep.start: required, load.steps.0 has no ${cfg.driver}`);
  return { cfg, template, start };
}

/**
 * Steps of a previous attempt to keep: the complete ones before the first cut-short step,
 * with their sweep points. The timeseries of the dropped step is cut so it is not shown twice.
 */
export function resumableSteps(prev: SweepResult, cfg: Sweep): { steps: StepResult[]; points: SweepPoint[] } {
  if (prev.sweep && prev.sweep.driver !== cfg.driver) {
    throw new SweepError(`cannot resume: that run swept ${prev.sweep.driver}, the profile sweeps ${cfg.driver}`);
  }
  const steps: StepResult[] = [];
  for (const s of prev.steps) {
    if (s.complete === false || s.index !== steps.length + 1) break;
    steps.push(s);
  }
  const points: SweepPoint[] = [];
  for (const s of steps) {
    const p = prev.sweep?.points.find((x) => x.step === s.index);
    const fromParams = (cfg.driver === 'subscribers' ? s.params.connections : s.params[cfg.driver]) as number | undefined;
    const value = p?.value ?? (typeof fromParams === 'number' ? fromParams : null);
    if (value === null) throw new SweepError(`cannot resume: step ${s.index} has no ${cfg.driver} value`);
    points.push({ step: s.index, value, phase: p?.phase ?? (cfg.values ? 'explicit' : 'grow') });
  }
  return { steps, points };
}

function truncateTimeseries(dir: string, keepSteps: number): void {
  const path = join(dir, 'timeseries.ndjson');
  if (!existsSync(path)) return;
  const kept = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => {
      if (!l.trim()) return false;
      try {
        return (JSON.parse(l) as { step: number }).step <= keepSteps;
      } catch {
        return false; // a line cut by the interruption
      }
    });
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, kept.length ? kept.join('\n') + '\n' : '');
  renameSync(tmp, path);
}

export async function runSweep(opts: SweepOptions): Promise<RunOutcome & { result: SweepResult; sweep: SweepRecord }> {
  const { cfg, template, start } = sweepConfig(opts.profile);
  const profile: Profile = structuredClone(opts.profile);
  const record: SweepRecord = { driver: cfg.driver, mode: cfg.values ? 'values' : 'search', points: [], stop_reason: null, knee: null, resumed_at: [] };
  let previous: StepResult[] = [];
  if (opts.resumeFrom) {
    if (!opts.outDir) throw new SweepError('a resumed sweep writes into the directory it resumes (outDir)');
    const kept = resumableSteps(opts.resumeFrom, cfg);
    previous = kept.steps;
    record.points = kept.points;
    record.resumed_at = [...(opts.resumeFrom.sweep?.resumed_at ?? []), new Date().toISOString()];
    truncateTimeseries(opts.outDir, previous.length);
  }
  profile.load.steps = record.points.map((p) => sweepStepSpec(template, cfg.driver, p.value, p.phase));
  const say = opts.onDecision ?? opts.log;
  const attach = (r: RunResult) => {
    (r as SweepResult).sweep = record;
  };

  const nextStep = (r: RunResult): Step | null => {
    attach(r);
    const history = historyOf(record, r.steps);
    record.knee = kneeRecord(history);
    const decision = planNextSweepStep(cfg, history, start);
    if ('stop' in decision) {
      record.stop_reason = decision.stop;
      say(`sweep: stop — ${decision.stop}`);
      return null;
    }
    const index = r.steps.length + 1;
    record.points = record.points.filter((p) => p.step < index);
    record.points.push({ step: index, value: decision.value, phase: decision.phase });
    say(`sweep: step ${index} — ${cfg.driver} ${fmtDriver(cfg.driver, decision.value)} (${decision.phase})`);
    return sweepStepSpec(template, cfg.driver, decision.value, decision.phase);
  };

  const outcome = await runBenchmark({
    ...opts,
    profile,
    nextStep,
    maxConnections: sweepMaxConnections(cfg, template),
    previousSteps: previous,
    runId: opts.resumeFrom?.run_id,
    // Connections that failed are not retried: after such a step the next one starts afresh,
    // or a bisection below a broken value would run short of members without knowing it.
    freshConnections: (r) => {
      const last = r.steps[r.steps.length - 1];
      return last !== undefined && (last.connections.failed > 0 || last.connections.disconnected > 0);
    },
    onStep: (r) => {
      attach(r);
      opts.onStep?.(r);
    },
  });
  const result = outcome.result as SweepResult;
  attach(result);
  record.knee = kneeRecord(historyOf(record, result.steps));
  if (record.stop_reason === null && result.status !== 'completed') record.stop_reason = `run ${result.status}${result.abort_reason ? `: ${result.abort_reason}` : ''} (resume with --resume ${outcome.dir})`;
  return { ...outcome, result, sweep: record };
}
