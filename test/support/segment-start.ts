/**
 * A --start-at for segments a test starts side by side: far enough ahead that every segment's
 * process is up and waiting for it (a late segment misses the shared schedule and its members
 * the first sends), and no further. How far is judged from this machine as it is now: `count`
 * `rtcap run --help` processes started together (node and the run command's imports; a segment
 * also forks its generator process, about as much again) — a few seconds on a quiet machine,
 * up to 15 s on a busy shared one, where a fixed 30 s lead was needed.
 */
import { spawn } from 'node:child_process';
import { BIN } from './rtcap-process.js';

/** The shortest lead: node processes and their first imports on a quiet machine. */
export const MIN_LEAD_MS = 8_000;

/** How long `count` rtcap processes take to start and answer `run --help` side by side. */
async function startupMs(count: number, argv: (args: string[]) => [string, string[]]) {
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: count }, () => {
      const [cmd, args] = argv([process.execPath, BIN, 'run', '--help']);
      const child = spawn(cmd, args, { stdio: 'ignore' });
      return new Promise<void>((res, rej) => {
        child.once('error', rej);
        child.once('exit', () => res());
      });
    }),
  );
  return Date.now() - t0;
}

/**
 * The start time, ms since the epoch: now plus three times the measured start-up (the run's own
 * process, its generator process, and a margin) plus 4 s, at least MIN_LEAD_MS. `argv` wraps the
 * command as the segments will be started (a network namespace, a limit); default: as is.
 */
export async function segmentStartAtMs(
  count: number,
  argv: (args: string[]) => [string, string[]] = ([cmd, ...args]) => [cmd, args],
): Promise<number> {
  const ms = await startupMs(count, argv);
  return Date.now() + Math.max(MIN_LEAD_MS, 3 * ms + 4_000);
}
