/**
 * The result format, `rtcap.result/v1`. result.json is the evidence: every report artefact
 * (summary.md, report.html, capacity tables) is rebuilt from it alone. Missing measurements
 * are null, never 0.
 */

export const RESULT_SCHEMA = 'rtcap.result/v1' as const;

// A timeseries.ndjson line is part of the format too; its shape lives in a file of its own.
import type { FrameFigures } from './frame-figures.js';
import type { StepCutShort } from './cut-short.js';
import type { StepSearchMark } from './search-mark.js';
import type { StepMessageCounts } from './step-messages.js';
import type {
  StepDatabaseFigures,
  StepGeneratorFigures,
  StepServerFigures,
} from './step-resources.js';

/**
 * `inconclusive`: nothing was measured (no latency, no acks, no joins); like generator-bound, never
 * capacity.
 */
export type Verdict = 'stable' | 'degraded' | 'broken' | 'generator-bound' | 'inconclusive';
export type RunStatus = 'running' | 'completed' | 'aborted' | 'interrupted';

export interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
  mean: number | null;
  /** Samples every percentile above rests on. */
  count: number;
  /**
   * The percentiles that rest on too few samples (result/percentile-samples: fewer than 10
   * beyond them), e.g. ["p99", "p999"] for 150 samples. Absent in results written before it;
   * readers recompute it from `count`.
   */
  few_samples?: string[];
}

/**
 * A histogram small enough for result.json: counts[i] holds samples with
 * le_ms[i-1] < value <= le_ms[i] (le_ms[-1] taken as -infinity); counts has one more entry
 * than le_ms, the last holding samples above the last bound. Use HISTOGRAM_LE_MS unless a
 * scenario needs other bounds.
 */
export interface CompactHistogram {
  le_ms: number[];
  counts: number[];
}

/**
 * Default bucket bounds: 1-2-5 steps from 1 ms to 60 s, covering docs/METHOD.md §1.2's 21 s p50.
 */
export const HISTOGRAM_LE_MS: readonly number[] = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 60_000,
];

export type ErrorClass = 'server' | 'network' | 'generator' | 'protocol';

export interface StepResult {
  /** Step number as printed, from 1 (profile `load.steps.<index − 1>`). */
  index: number;
  label: string;
  /** The load this step asked for. Scenario drivers (rooms, members, update share...) too. */
  params: {
    connections: number;
    send_rate: number;
    duration_s: number;
    join_rate: number;
    payload_bytes: number;
    [driver: string]: number | string | boolean | null;
  };
  verdict: Verdict;
  /** Why the verdict is what it is, one line each (e.g. "p95 412 ms > SLO 200 ms"). */
  verdict_reasons: string[];
  /** Epoch ms of the phases. steady_* bound the measured window. */
  window: { ramp_start: number; steady_start: number; steady_end: number; drain_end: number };
  /** False when the step was cut short (interrupt, abort); its figures cover what ran. */
  complete: boolean;
  /** What cut it short and where (complete false); absent in complete steps and older results. */
  cut_short?: StepCutShort;
  /** What a search (rtcap sweep, a campaign's search entry) knew of this step; absent otherwise. */
  search?: StepSearchMark;
  connections: {
    target: number;
    opened: number;
    joined: number;
    failed: number;
    disconnected: number;
    /** Open at the end of the step. */
    open_at_end: number;
    /**
     * Scheduled join time → ok reply of the step's joins (a reconnect: from when it was reopened).
     */
    join_latency_ms: Percentiles;
    /** Joins the step's ramp scheduled (new connections); absent in older results. */
    scheduled_joins?: number;
    /** Of those, answered ok at the first attempt: what rates.joins_per_s counts. */
    first_joins?: number;
    /**
     * With load.reconnect, when connections were dropped: how many, how many reconnected and
     * joined again in the step, the longest one was down and the gap from the first drop to the
     * last rejoin (null: none came back). Absent otherwise.
     */
    reconnect?: {
      dropped: number;
      reconnected: number;
      longest_down_ms: number;
      gap_ms: number | null;
    };
  };
  messages: StepMessageCounts;
  /** Frames its connections got and could not use (./frame-figures); absent in older results. */
  frames?: FrameFigures;
  /** received / expected, counting each message once per member joined when it was sent. */
  delivery_rate: number | null;
  /** Send-to-first-receive, from the scheduled send time (no coordinated omission). */
  latency_ms: Percentiles;
  /** The same from the actual send time, to show the generator's own delay. */
  latency_from_actual_send_ms: Percentiles;
  /** Every receipt's latency (not only the first per message). */
  delivery_latency_ms: Percentiles;
  /** Last receive minus scheduled send, per message. */
  fanout_span_ms: Percentiles;
  /**
   * Optional: send-to-first-receive latency (the same samples as latency_ms) in fixed
   * buckets, for the report's histogram chart. Absent in results written before it existed.
   */
  latency_histogram_ms?: CompactHistogram | null;
  rates: {
    sent_per_s: number | null;
    /**
     * Acks (load.ack) counted by ack time, per second, averaged over the steady window's whole
     * seconds: the write-only throughput. Null without acks; absent in older results.
     */
    acked_per_s?: number | null;
    delivered_per_s: number | null;
    /**
     * The ramp's first joins per second, by reply time: (N − 1) ÷ (last − first ok reply) over
     * the N first attempts answered ok. Null with fewer than two. Reconnects are not in it.
     */
    joins_per_s: number | null;
    /**
     * Reconnects that joined, per second from ramp start to drain end; null when the step does not
     * reconnect.
     */
    rejoins_per_s?: number | null;
    /** Highest 60 s sliding mean seen in the step (seed 002 reports 60 s means). */
    delivered_per_s_60s_max: number | null;
    egress_mib_per_s: number | null;
  };
  server: StepServerFigures;
  database: StepDatabaseFigures;
  /**
   * The drain after the steady window: how long after it closed the last receipt came
   * (backlog_ms) and the deliveries of the whole seconds after it (deliveries, not throughput).
   * Absent in older results.
   */
  drain?: { backlog_ms: number | null; receipts_after_window: number };
  generator: StepGeneratorFigures;
  /** Counts by verbatim reason, e.g. "join: Unauthorized: You do not have ...". */
  errors: Record<string, number>;
  error_classes: Record<ErrorClass, number>;
  /** Scenario-specific figures (presence, changes, rooms...). */
  extra: Record<string, unknown>;
}

/** One segment's clock against segment 0's (RunResult.segments.clock_offsets). */
export interface SegmentClockOffset {
  segment: number;
  /** Median of (first receipt on this segment − first receipt on segment 0), same message; ms. */
  offset_ms: number;
  /** Interquartile range of that difference, ms. */
  iqr_ms: number;
  /** Messages received on both this segment and segment 0. */
  messages: number;
}

/** An emulated client link as configured and how it was emulated (src/link). */
export interface LinkRecord {
  /** One-way delay, each direction (ms). */
  delay_ms: number;
  /** Uniform spread around the delay, each direction (ms). */
  jitter_ms: number;
  /** Packets lost, each direction (percent). */
  loss_pct: number;
  emulation: 'netem' | 'relay';
}

export interface RunResult {
  schema: typeof RESULT_SCHEMA;
  run_id: string;
  status: RunStatus;
  /** One line: why the run stopped early, or null. */
  abort_reason: string | null;
  started_at: string;
  finished_at: string | null;
  rtcap_version: string;
  profile: { name: string; scenario: string; path: string | null; resolved: unknown };
  target: {
    url: string;
    builtin: boolean;
    vsn: string;
    dialect: string;
    topic: string;
    instance: { vcpus: number; memory_mb: number };
    cpus: string | null;
    server_sampling: string | null;
  };
  generator: {
    workers: number;
    cpus: string | null;
    source_addresses: string[];
    /**
     * The emulated client link (profile generator.link) as configured, and how it was emulated:
     * `netem` (the kernel's qdisc, rtcap's own namespace) or `relay` (userspace, delay and
     * jitter only; src/link). Absent: the generator's connections had no emulated link.
     */
    link?: LinkRecord;
    limits: {
      open_files_per_process: number | null;
      ephemeral_ports: number | null;
      port_range: string | null;
    };
    /**
     * From systeminformation when the run starts (monitor/host), with the cgroup limits that apply.
     */
    host: {
      cores: number;
      memory_mb: number;
      node: string;
      platform: string;
      physical_cores?: number | null;
      cpu_model?: string | null;
      cgroup_cpu_cores?: number | null;
      cgroup_memory_mb?: number | null;
      load_avg_1m?: number;
    };
  };
  slo: { p95_ms: number; p99_ms?: number; delivery_rate: number };
  steps: StepResult[];
  /** Filled by the model layer (fits, capacity, advice) when the run has enough steps. */
  analysis?: unknown;
  /** A result merged from the shards of a run split over several generators (`rtcap merge`). */
  segments?: {
    run: string;
    count: number;
    hosts: string[];
    workers: number;
    clocks: string;
    /**
     * Each segment's clock against segment 0's, from the first receipts of the messages both
     * received (shard/clock-offsets), and the shared schedule's margin an offset must stay
     * within. Absent in older results.
     */
    clock_offsets?: { margin_ms: number; segments: SegmentClockOffset[] };
  };
}
