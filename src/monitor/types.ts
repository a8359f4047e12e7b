/**
 * A resource sampler: where the server's CPU and memory come from (docs/ARCHITECTURE.md "Where
 * server CPU and memory come from"). The report names the source of every figure; a missing source
 * gives null, never 0.
 */
export interface ResourceSample {
  /** Epoch ms. */
  t: number;
  /** Server CPU in cores (1.0 = one core busy over the interval); null before the second sample. */
  cpuCores: number | null;
  rssMb: number | null;
  /** The database's share when it runs under the server (embedded Postgres). */
  dbCpuCores: number | null;
  dbRssMb: number | null;
  /**
   * The server process nearest its open-file limit: files open and the limit (local servers
   * only, from /proc; absent or null elsewhere).
   */
  openFiles?: { pid: number; open: number; limit: number | null } | null;
  /** Each server process's RSS (local process trees only, the database's left out). */
  processes?: Array<{ pid: number; rssMb: number }>;
}

export interface ResourceSampler {
  readonly source: string;
  sample(): Promise<ResourceSample>;
}
