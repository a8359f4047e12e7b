/**
 * The live state of a run, sweep, campaign or quota check as the dashboard shows it: a run
 * observer (the runner calls it with each merged second and each finished step, as it calls
 * the live metrics), the result so far after each step (a sweep's search), the campaign's
 * entries, the log lines, and the end of the run with its files. Bounded: the last
 * MAX_SECONDS seconds, the last MAX_LOG_LINES lines, the last MAX_STEPS steps — an hour-long
 * run or a campaign of many entries holds no more than a short one beyond that.
 */
import { limitContextOf } from '../model/step-limit.js';
import { StepFailing, type SecondLimits } from '../model/second-limit.js';
import type { RunResult, StepResult } from '../result/result.js';
import type { PhaseClock, RunObserver } from '../run/runner.js';
import type { SecondRecord } from '../figures/timeline.js';
import type { CampaignState } from '../campaign/state.js';
import { sweepKneeOf, type SweepRecord, type SweepResult } from '../sweep/record.js';
import {
  dashboardSecond,
  dashboardStep,
  type DashboardSecond,
  type DashboardStep,
} from './figures.js';

export const MAX_SECONDS = 3600;
export const MAX_LOG_LINES = 200;
export const MAX_STEPS = 500;

export type LiveCommand = 'run' | 'sweep' | 'campaign' | 'quotas';

export interface RunInfo {
  run_id: string;
  profile: string;
  scenario: string;
  target: string;
  started_at: string;
  /** Campaign entry (from 1) this run belongs to; null outside a campaign. */
  entry: number | null;
}

export interface CampaignView {
  name: string;
  status: CampaignState['status'];
  entries: Array<{
    index: number;
    name: string;
    sweep: boolean;
    status: string;
    wall_s: number;
    attempts: number;
    dir: string;
    files: RunFiles | null;
  }>;
}

/**
 * Links the page offers to a finished run's files: each file's name and its path under the
 * dashboard.
 */
export interface RunFiles {
  dir: string;
  links: Array<{ name: string; href: string }>;
}

export interface EndView {
  status: string;
  exit_code: number | null;
  abort_reason: string | null;
  files: RunFiles | null;
  /** A table the command ends with (the quota checks' rows), as the terminal prints it. */
  table: { title: string; columns: string[]; rows: string[][] } | null;
}

export interface LiveSnapshot {
  mode: 'live';
  command: LiveCommand;
  run: RunInfo | null;
  seconds: DashboardSecond[];
  steps: DashboardStep[];
  sweep: SweepRecord | null;
  campaign: CampaignView | null;
  log: string[];
  end: EndView | null;
}

type Emit = (event: string, data: unknown) => void;

export class DashboardFeed implements RunObserver {
  private run: RunInfo | null = null;
  private readonly seconds: DashboardSecond[] = [];
  private readonly steps: DashboardStep[] = [];
  private sweep: SweepRecord | null = null;
  private campaignState: CampaignState | null = null;
  /**
   * When each campaign entry was seen running, for its time so far (campaign.json adds it at the
   * end).
   */
  private readonly entryStartedMs = new Map<number, number>();
  private readonly entryFiles = new Map<number, RunFiles>();
  /**
   * When each entry's run ended: its clock stops there while the campaign writes its table and
   * starts the next entry (campaign.json's state and time follow then).
   */
  private readonly entryEndedMs = new Map<number, number>();
  private readonly logLines: string[] = [];
  /** The connections failed or dropped in the step so far, for a second's limit. */
  private failing = new StepFailing();
  private end: EndView | null = null;
  /** The runner's result object: its target is filled in once the target has started. */
  private result$: RunResult | null = null;

  constructor(
    readonly command: LiveCommand,
    private readonly emit: Emit = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  start(r: RunResult): void {
    this.result$ = r;
    this.failing = new StepFailing();
    const entry = this.campaignState?.entries.find((e) => e.status === 'running')?.index ?? null;
    this.run = {
      run_id: r.run_id,
      profile: r.profile.name,
      scenario: r.profile.scenario,
      target: r.target.url,
      started_at: r.started_at,
      entry,
    };
    // A campaign's next entry is a new run: its seconds and steps start afresh.
    this.seconds.length = 0;
    this.steps.length = 0;
    this.sweep = null;
    this.emit('run', this.run);
    this.emitCampaign();
  }

  /**
   * `limits`: what the second's limit is read against, as the runner hands it to the progress line
   * (without it, rtcap's own OS limits from the run's result).
   */
  second(
    rec: SecondRecord,
    stepTargetConnections: number,
    clock?: PhaseClock,
    limits?: SecondLimits,
  ): void {
    if (this.run && this.result$ && this.run.target !== this.result$.target.url) {
      this.run = { ...this.run, target: this.result$.target.url };
      this.emit('run-info', this.run);
    }
    const s = dashboardSecond(
      rec,
      stepTargetConnections,
      clock ?? { elapsedS: 0, lengthS: null, steps: 0 },
      {
        generatorOs: this.result$ ? limitContextOf(this.result$).generator_os : null,
        ...limits,
        stepFailing: this.failing.add(rec.point),
      },
    );
    this.seconds.push(s);
    if (this.seconds.length > MAX_SECONDS)
      this.seconds.splice(0, this.seconds.length - MAX_SECONDS);
    this.emit('second', s);
    if (this.campaignState) this.emitCampaign();
  }

  step(step: StepResult): void {
    const s = dashboardStep(step);
    this.steps.push(s);
    if (this.steps.length > MAX_STEPS) this.steps.splice(0, this.steps.length - MAX_STEPS);
    this.emit('step', s);
  }

  /**
   * The result after each step, and at the end: a sweep's points ride on it, and its knee so far
   * is the one the finished sweep records (sweepKneeOf, over the steps run until now).
   */
  result(r: SweepResult): void {
    if (!r.sweep) return;
    this.sweep = { ...structuredClone(r.sweep), knee: sweepKneeOf(r) };
    this.emit('sweep', this.sweep);
  }

  /** The campaign being run: its state object is the one runCampaign updates after each entry. */
  campaign(state: CampaignState): void {
    this.campaignState = state;
    this.emitCampaign();
  }

  /**
   * Campaign entry `index` (from 1) is over and its files are written: in this process, or
   * before a resume.
   */
  entryDone(index: number, files: RunFiles): void {
    this.entryFiles.set(index, files);
    const e = this.campaignState?.entries.find((x) => x.index === index);
    if (e?.status === 'running') this.entryEndedMs.set(index, this.now());
    this.emitCampaign();
  }

  log(line: string): void {
    this.logLines.push(line);
    if (this.logLines.length > MAX_LOG_LINES)
      this.logLines.splice(0, this.logLines.length - MAX_LOG_LINES);
    this.emit('log', line);
  }

  finish(end: EndView): void {
    this.end = end;
    this.emitCampaign();
    this.emit('end', end);
  }

  snapshot(): LiveSnapshot {
    return {
      mode: 'live',
      command: this.command,
      run: this.run,
      seconds: this.seconds,
      steps: this.steps,
      sweep: this.sweep,
      campaign: this.campaignView(),
      log: this.logLines,
      end: this.end,
    };
  }

  private campaignView(): CampaignView | null {
    const st = this.campaignState;
    if (!st) return null;
    const now = this.now();
    return {
      name: st.name,
      status: st.status,
      entries: st.entries.map((e) => {
        if (e.status === 'running' && !this.entryStartedMs.has(e.index))
          this.entryStartedMs.set(e.index, now);
        if (e.status !== 'running') {
          this.entryStartedMs.delete(e.index);
          this.entryEndedMs.delete(e.index);
        }
        const since = this.entryStartedMs.get(e.index);
        const until = this.entryEndedMs.get(e.index) ?? now;
        const wall = e.wall_s + (since === undefined ? 0 : Math.round((until - since) / 1000));
        return {
          index: e.index,
          name: e.name,
          sweep: e.sweep,
          status: e.status,
          wall_s: wall,
          attempts: e.attempts,
          dir: e.dir,
          files: this.entryFiles.get(e.index) ?? null,
        };
      }),
    };
  }

  private emitCampaign(): void {
    const view = this.campaignView();
    if (view) this.emit('campaign', view);
  }
}
