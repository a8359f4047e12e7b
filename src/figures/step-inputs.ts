/**
 * What a step's result is built from (figures/step-result): the processes' collections, the
 * coordinator's inserts, the step's windows and seconds, the server and host samples. Types
 * only, and the one sum of a plain count over the processes.
 */
import type { SendRecord } from '../measure/aggregate.js';
import type { StepCollected } from '../generator/ipc.js';
import type { InsertStats } from '../load/insert-record.js';
import type { Profile } from '../profile/schema.js';
import type { StepCutShort } from '../result/cut-short.js';
import type { StepResult } from '../result/result.js';
import type { StepPlan } from '../scenarios/types.js';
import type { ResourceSample } from '../monitor/types.js';
import type { GaugeSample } from '../monitor/gauges.js';
import type { HostSample } from '../monitor/host.js';
import type { ServerBasis } from '../monitor/server-basis.js';
import { sumOf } from '../util/sum.js';
import type { SecondRecord } from './timeline.js';
import type { StepWindow } from './window.js';

export interface StepInputs {
  profile: Profile;
  plan: StepPlan;
  collected: StepCollected[];
  /** Rows the coordinator inserted (Postgres Changes). */
  inserts: SendRecord[];
  insertStats: InsertStats | null;
  window: StepWindow;
  steadySeconds: SecondRecord[];
  /**
   * Sum of the generator processes' RSS before any connection (MiB), for
   * generator.rss_per_connection_kb.
   */
  generatorIdleRssMb?: number | null;
  stepSeconds: SecondRecord[];
  serverSamples: ResourceSample[];
  /** The server's RSS before any connection (MiB), for server.rss_per_connection_kb. */
  serverIdleRssMb?: number | null;
  serverSource: string | null;
  /** What the server can use (monitor/server-basis); the declared instance when absent. */
  serverBasis?: ServerBasis;
  workers: number;
  complete: boolean;
  /** What cut the step short (complete false); absent: a complete step, or its cause unknown. */
  cut?: StepCutShort;
  builtin?: boolean;
  previousSteps?: readonly StepResult[];
  serverGauges?: readonly GaugeSample[];
  /** The generator host, one sample a second (monitor/host). */
  hostSamples?: readonly HostSample[];
  /**
   * Segments the run was split into (generator/segment; absent: 1). With more than one, latency
   * uses only receipts whose sender ran on the receiver's machine (counts use all).
   */
  segments?: number;
}

/** The sum of one plain count over the generator processes. */
export function sumCollected(args: StepInputs, f: (c: StepCollected) => number): number {
  return sumOf(args.collected, f);
}
