/** The line format of timeseries.ndjson, part of the result format `rtcap.result/v1`. */

/** One line of timeseries.ndjson, written every second while the run goes. */
export interface TimeseriesPoint {
  t: number; // epoch seconds
  /** Step number, from 1. */
  step: number;
  phase: 'ramp' | 'warmup' | 'steady' | 'drain';
  connections_open: number;
  joined: number;
  joins_per_s: number;
  sent_per_s: number;
  /**
   * Acks (load.ack) received this second, by ack time; absent in results written before acks were
   * counted.
   */
  acked_per_s?: number;
  /** Acks still awaited at the end of this second. */
  acks_pending?: number;
  delivered_per_s: number;
  /** 60 s sliding means, as seed 002's method averages rates. */
  sent_per_s_60s: number;
  delivered_per_s_60s: number;
  delivery_p50_ms: number | null;
  delivery_p95_ms: number | null;
  delivery_p99_ms: number | null;
  errors: number;
  disconnects: number;
  server_cpu_pct: number | null;
  server_rss_mb: number | null;
  /**
   * The server process nearest its open-file limit at this second's sample: files open and the
   * limit (null: unlimited); absent when the server's file table was not read (not on this
   * machine, or written before this was recorded).
   */
  server_open_files?: { open: number; limit: number | null };
  /**
   * Connections that failed this second on an OS limit of rtcap's own processes, by errno
   * (EMFILE, ENFILE: out of descriptors; EADDRNOTAVAIL, EADDRINUSE: out of ephemeral ports;
   * ENOBUFS), summed over the generator processes; absent when none did.
   */
  generator_os_errors?: Record<string, number>;
  generator_cpu_pct: number | null;
  generator_lag_p99_ms: number | null;
  /**
   * Lines of generator processes that came in after their own second was written, counted in
   * this one (their sends, receipts, joins, errors); absent when none.
   */
  late_lines?: number;
  /**
   * Lines in this second that are pieces of a process's line that covered several seconds (its
   * per-second tick came more than a second late): their counts are spread evenly over the
   * seconds the line covered, so this second's rates are an even estimate for that process;
   * absent when none.
   */
  spread_lines?: number;
}
