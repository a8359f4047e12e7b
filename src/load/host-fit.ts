/**
 * Whether this machine can hold the generator a run asks for, checked before anything starts:
 * memory (a lower bound per connection and per process against the memory available), the
 * processes this user may still start, and loopback source addresses (127.0.0.1–127.0.0.254).
 * A run it cannot hold is refused with the numbers, never started to die of ENOMEM or EAGAIN
 * halfway with worker processes left behind.
 */
import { readFileSync } from 'node:fs';
import { freemem } from 'node:os';

/**
 * The least a generator process holds per idle connection (measured: ~7.5 KB with the small
 * young generation, ~10 KB with traffic; docs/PERFORMANCE.md) — a lower bound, so only what
 * cannot fit is refused.
 */
export const MIN_KB_PER_CONNECTION = 7.5;
/** The least one generator process holds before any connection (Node and rtcap loaded). */
export const MIN_MB_PER_PROCESS = 40;
/** Loopback source addresses rtcap plans: 127.0.0.1 … 127.0.0.254. */
export const MAX_LOOPBACK_ADDRESSES = 254;

export interface HostRoom {
  /** MemAvailable (Linux), else free memory; MiB. */
  memAvailableMb: number | null;
  /** Processes this user may still start (RLIMIT_NPROC); null when unlimited or unknown. */
  processesLeft: number | null;
}

export function readHostRoom(): HostRoom {
  let memAvailableMb: number | null = Math.round(freemem() / 1048576);
  try {
    const m = /MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (m) memAvailableMb = Math.round(Number(m[1]) / 1024);
  } catch {
    /* not Linux: free memory */
  }
  let processesLeft: number | null = null;
  try {
    const m = /Max processes\s+(\d+|unlimited)/.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (m && m[1] !== 'unlimited') processesLeft = Number(m[1]);
  } catch {
    /* unknown */
  }
  return { memAvailableMb, processesLeft };
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** Why this machine cannot hold the generator asked for (one line), or null. */
export function hostFitProblem(args: {
  connections: number;
  workers: number;
  /** Loopback source addresses the plan needs (0: the kernel's default address). */
  loopbackAddresses: number;
  room: HostRoom;
}): string | null {
  const { connections, workers, room } = args;
  const problems: string[] = [];
  const needMb = (connections * MIN_KB_PER_CONNECTION) / 1024 + workers * MIN_MB_PER_PROCESS;
  if (room.memAvailableMb !== null && needMb > room.memAvailableMb)
    problems.push(
      `memory: at least ${n(needMb)} MB (${MIN_KB_PER_CONNECTION} KB per connection + ${MIN_MB_PER_PROCESS} MB per process × ${n(workers)} processes) > ${n(room.memAvailableMb)} MB available`,
    );
  if (room.processesLeft !== null && workers > room.processesLeft)
    problems.push(
      `processes: ${n(workers)} generator processes > this user's limit of ${n(room.processesLeft)} (ulimit -u)`,
    );
  if (args.loopbackAddresses > MAX_LOOPBACK_ADDRESSES)
    problems.push(
      `source ports: ${n(args.loopbackAddresses)} loopback source addresses needed, 127.0.0.x has ${MAX_LOOPBACK_ADDRESSES}`,
    );
  if (problems.length === 0) return null;
  return `load asks for ${n(connections)} connections, more than this machine can hold — ${problems.join('; ')}; lower load.steps.N.connections or split the run over machines (--segment)`;
}
