/**
 * A generator process the system would not start, in one classified line: which process of how
 * many, the error code, and what it means on this host — "could not start generator process 3 of
 * 6: EAGAIN (the system refused a new process: …)". The pool throws it after it has killed and
 * reaped every process it had started (their pids are kept for the log).
 */

/** What each code a refused fork gives means, in the words a user can act on. */
const MEANING: Record<string, string> = {
  EAGAIN:
    "the system refused a new process: this user's process limit (ulimit -u), the cgroup's pids.max or kernel.pid_max is reached, or memory is short",
  ENOMEM: 'not enough memory for a new process',
  EMFILE: "no file descriptor left for the new process's pipes (ulimit -n)",
  ENFILE: 'no file descriptor left on this host for the new process (fs.file-max)',
  ENOENT: 'the program to start is not there',
  EACCES: 'the program to start may not be executed',
};

export class SpawnFailed extends Error {
  override name = 'SpawnFailed';

  constructor(
    /** The process that could not start, counted from 0. */
    readonly worker: number,
    readonly workers: number,
    cause: NodeJS.ErrnoException,
    /** Pids of the processes started before it, all killed and reaped. */
    readonly stoppedPids: number[],
  ) {
    super(spawnFailureLine(worker, workers, cause), { cause });
  }
}

/** "could not start generator process 3 of 6: EAGAIN (the system refused a new process: …)". */
export function spawnFailureLine(
  worker: number,
  workers: number,
  e: Pick<NodeJS.ErrnoException, 'code' | 'message'>,
): string {
  const meaning = e.code ? MEANING[e.code] : undefined;
  const what = e.code ? `${e.code} (${meaning ?? e.message})` : e.message;
  return `could not start generator process ${worker + 1} of ${workers}: ${what}`;
}
