/**
 * rtcap's exit codes, one table for every command (docs/FAULTS.md's table is this one). A code a
 * command never returns is simply not used by it; no command gives one a second meaning.
 */
export const EXIT = {
  /** Done (and every gate, threshold or quota held). */
  ok: 0,
  /** Something unexpected: an internal error, or `report` could not write a file. */
  failed: 1,
  /**
   * A usage error (a flag, an argument, a file given) or a profile/campaign/workload error: nothing
   * ran.
   */
  usage: 2,
  /**
   * A run was aborted (target unreachable, refused, lost every connection, server exited); `init`:
   * the server could not be probed, nothing written.
   */
  aborted: 3,
  /** `plan`: no instance count of the measured size carries the workload. */
  notCarried: 4,
  /** A threshold, gate or quota failed, after everything was written. */
  thresholds: 99,
  /** Interrupted: SIGINT (Ctrl-C). */
  interrupted: 130,
  /** Terminated: SIGTERM. */
  terminated: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
