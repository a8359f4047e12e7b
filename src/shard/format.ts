/**
 * The shard: what one generator segment measured, in the form the coordinator merges. It is
 * exactly the coordinator's inputs from its worker processes — every step's StepCollected
 * (per stream and seq receive counts and first/last receive times, encoded HDR histograms,
 * send ledgers, membership, errors, acks) and every per-second SecondStats line — plus the
 * step windows and the identity of the run and segment. Local worker processes and
 * machines feed one merge path (./merge.ts → figures/step-result.ts and
 * figures/timeline.ts).
 */
import type { SecondStats, StepCollected } from '../generator/ipc.js';
import type { StepWindow } from '../figures/window.js';
import type { SendRecord } from '../measure/aggregate.js';
import type { InsertStats } from '../load/insert-record.js';
import type { ResourceSample } from '../monitor/types.js';
import type { GaugeSample } from '../monitor/gauges.js';
import type { HostSample } from '../monitor/host.js';
import type { ServerBasis } from '../monitor/server-basis.js';
import type { LinkRecord } from '../result/result.js';
import type { StepCutShort } from '../result/cut-short.js';

export const SHARD_FORMAT = 'rtcap-shard';
/** Bump on any change a reader of the previous version would misread. */
export const SHARD_VERSION = 2;
export const SHARD_FILE = 'shard.json';

/** Which run and which part of it a shard is. Shards merge only when all but `segment` agree. */
export interface ShardIdentity {
  /** One id shared by every segment of a run (e.g. the --start-at time, or a name given). */
  run: string;
  profileName: string;
  /** sha256 of the canonical profile JSON: segments of different profiles never merge. */
  profileHash: string;
  /** 0 … segments − 1. */
  segment: number;
  segments: number;
}

export interface ShardStep {
  /** 0-based step index. */
  step: number;
  window: StepWindow;
  complete: boolean;
  /** What cut the step short (complete false); absent in complete steps and older shards. */
  cut?: StepCutShort;
  /** One entry per generator process of this segment. */
  collected: StepCollected[];
  /**
   * Rows this segment's coordinator inserted (Postgres Changes; each insert stream is one
   * segment's, generator/segment insertSegmentOf).
   */
  inserts?: SendRecord[];
  insertStats?: InsertStats | null;
}

/** What a segment sampled beside its processes, once a second over the run. */
export interface ShardResources {
  /** The server's CPU and memory (a local built-in server, or target.metrics_url). */
  serverSamples: ResourceSample[];
  serverSource: string | null;
  /** What the server can use (monitor/server-basis); null: the declared instance. */
  serverBasis: ServerBasis | null;
  /** The server's gauges (e.g. the CDC poller's). */
  gaugeSamples: GaugeSample[];
  /** The generator host (monitor/host). */
  hostSamples: HostSample[];
  /**
   * Sum of this segment's generator processes' RSS when ready, before any connection (MiB); the
   * baseline of generator.rss_per_connection_kb.
   */
  generatorIdleRssMb?: number | null;
  /** The server's RSS at its first sample, before any connection (MiB); absent in older shards. */
  serverIdleRssMb?: number | null;
}

export interface Shard {
  format: typeof SHARD_FORMAT;
  version: typeof SHARD_VERSION;
  identity: ShardIdentity;
  /** The generator host (its clock measured the receipts in this shard). */
  host: { hostname: string; workers: number; startedAt: string };
  /**
   * What the merge needs to rebuild the run's result: the resolved profile with its secrets
   * replaced, and how this segment ran.
   */
  run: {
    profile: unknown;
    profilePath: string | null;
    builtin: boolean;
    /** Redacted. */
    targetUrl: string;
    status: string;
    abortReason: string | null;
    finishedAt: string | null;
    /** The emulated client link (generator.link) and how it was emulated; absent: none. */
    link?: LinkRecord;
  };
  steps: ShardStep[];
  seconds: SecondStats[];
  /** Absent from shards of rtcap before resources were recorded. */
  resources?: ShardResources;
}

export class ShardError extends Error {}
