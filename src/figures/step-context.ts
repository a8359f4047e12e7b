/**
 * What a scenario's figures (StepResult.extra, ./extras.ts) may read of a step: its plan, what
 * the generator processes collected, the figures by traffic kind, the step's seconds and the
 * server's gauges. ./step-result.ts builds it once per step.
 */
import type { StepCollected } from '../generator/ipc.js';
import type { InsertStats } from '../load/insert-record.js';
import type { Histogram } from '../measure/histogram.js';
import type { GaugeSample } from '../monitor/gauges.js';
import type { Profile } from '../profile/schema.js';
import type { StepResult } from '../result/result.js';
import type { StepPlan, TrafficKind } from '../scenarios/types.js';
import type { KindFigures } from './kinds.js';
import type { SecondRecord } from './timeline.js';
import type { StepWindow } from './window.js';

export interface StepContext {
  profile: Profile;
  plan: StepPlan;
  collected: StepCollected[];
  window: StepWindow;
  kinds: Partial<Record<TrafficKind, KindFigures>>;
  steadySeconds: SecondRecord[];
  stepSeconds: SecondRecord[];
  /** Merged across processes. */
  ackLatency: Histogram;
  commitLatency: Histogram;
  insertStats: InsertStats | null;
  /**
   * The target is the built-in server rtcap started, so its tenant config is
   * profile.target.server.config.
   */
  builtin: boolean;
  /** The run's earlier steps (mixed: each component's solo step). */
  previous: readonly StepResult[];
  /** Server gauges scraped once a second during the run (monitor/gauges), e.g. the CDC poller's. */
  serverGauges: readonly GaugeSample[];
}
