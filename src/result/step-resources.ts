/**
 * What a step records of the resources of the server, its database and the generator: CPU,
 * memory, open files, and the generator's own host (StepResult.server, .database, .generator).
 */

/** StepResult.server: the server's CPU and memory over the steady window. */
export interface StepServerFigures {
  cpu_pct: number | null;
  cpu_pct_max: number | null;
  mem_pct: number | null;
  rss_mb: number | null;
  rss_mb_max: number | null;
  source: string | null;
  /**
   * What cpu_pct and mem_pct are of: for a local server what it can use (CPU affinity, cgroup
   * quota and memory limit), else the declared instance. Absent in older results.
   */
  basis?: {
    vcpus: number;
    memory_mb: number;
    source: 'affinity' | 'cgroup' | 'declared';
    memory_source: 'cgroup' | 'declared';
  };
  /**
   * The server process nearest its open-file limit over the whole step (ramp to drain): the
   * most files it had open at a once-a-second sample, its soft open-file limit (null:
   * unknown or unlimited) and its pid. Local servers only; absent in older results.
   */
  open_files?: { max: number; limit: number | null; pid: number } | null;
  /**
   * (RSS at the steady window's highest sample − the server's RSS at its first sample, ready
   * and before any connection) × 1024 ÷ connections joined at the start of the steady window,
   * KiB; a local server sampled from /proc only. Absent in older results.
   */
  rss_per_connection_kb?: number | null;
  /** Each server process's RSS at that sample (MiB), by pid. Absent in older results. */
  rss_mb_by_process?: Array<{ pid: number; rss_mb: number }>;
}

/** StepResult.database: the server's database's CPU and memory, when it is sampled. */
export type StepDatabaseFigures = { cpu_pct: number | null; rss_mb: number | null } | null;

/** StepResult.generator: the generator processes and their host, and whether they kept up. */
export interface StepGeneratorFigures {
  cpu_pct: number | null;
  event_loop_lag_p99_ms: number | null;
  /** Sends and joins actually made on time, over those scheduled. */
  offered_ratio: number | null;
  /**
   * The offered ratio of each part of the load: a traffic kind's sends (broadcast, presence,
   * changes: rows committed) and `joins`. offered_ratio is the lowest; a step is
   * generator-bound when any part fell behind. Absent in older results.
   */
  offered_by_part?: Record<string, number>;
  late_joins: number;
  /**
   * Seconds of the steady window holding a piece of a process's line that covered several
   * seconds (its per-second tick came more than a second late: figures/spread-line); their
   * counts are even shares, so the window's rates are estimates there. Absent when none.
   */
  spread_seconds?: number;
  rss_mb: number | null;
  /**
   * Sum of the generator processes' RSS, highest second of the steady window (MiB). Absent in
   * older results.
   */
  rss_mb_total?: number | null;
  /**
   * (rss_mb_total − the processes' RSS before any connection) ÷ connections joined, KiB. Absent
   * in older results.
   */
  rss_per_connection_kb?: number | null;
  /**
   * Each generator process's RSS (MiB, process 0 first) in the second of rss_mb_total. Absent in
   * older results.
   */
  rss_mb_by_process?: number[];
  workers: number;
  /**
   * The generator host over the steady window (systeminformation, one sample a second): CPU %
   * of all its cores, load average, memory in use, and its network interfaces' throughput —
   * `lo` for a loopback target (both directions of every socket), else the other interfaces.
   * net_tx is the generator host's egress. Absent in older results; null when not sampled.
   */
  host?: {
    cpu_pct: number | null;
    load_avg_1m: number;
    mem_used_mb: number | null;
    net_tx_mib_per_s: number | null;
    net_rx_mib_per_s: number | null;
    interfaces: string[];
    samples: number;
  } | null;
}
