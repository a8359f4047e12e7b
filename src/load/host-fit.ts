/**
 * Whether this machine can hold the generator a run asks for, checked before anything starts:
 * memory (a lower bound per connection and per process against the memory available), the
 * processes it may still start (each generator process is several tasks: threads count against
 * the same limits), open files (an emulated link's relay holds two descriptors per connection in
 * rtcap's own process) and source ports (loopback addresses within 127/8; the ports listed source
 * addresses give). A run it cannot hold is refused with the numbers, never started to die of
 * ENOMEM, EAGAIN or EMFILE halfway with worker processes left behind.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { freemem } from 'node:os';
import { MAX_LOOPBACK_ADDRESSES } from '../generator/limits.js';

/**
 * The least a generator process holds per idle connection (measured: 5.9 KB at 300,000 with the
 * small young generation, 7.5 KB at 50,000, ~10 KB with traffic; docs/PERFORMANCE.md) — a lower
 * bound, so only what cannot fit is refused.
 */
export const MIN_KB_PER_CONNECTION = 5.5;
/**
 * The least the built-in server holds per idle joined connection when it runs here too
 * (measured: 7.5 KB RSS per connection at 300,000 and 400,000, 8.2 KB at 100,000;
 * docs/PERFORMANCE.md) — a lower bound too.
 */
export const MIN_KB_PER_SERVER_CONNECTION = 7;
/** The least one generator process holds before any connection (Node and rtcap loaded). */
export const MIN_MB_PER_PROCESS = 40;
/**
 * Tasks (the process and its threads: libuv's pool, V8's platform workers) one generator process
 * counts against the process limits (measured: 11 in a ready generator process, Node 20).
 */
export const TASKS_PER_PROCESS = 11;
/** Descriptors rtcap's own process needs besides the relayed sockets (stdio, IPC, epoll, files). */
export const COORDINATOR_FD_RESERVE = 200;

export interface HostRoom {
  /** MemAvailable (Linux), else free memory; MiB. */
  memAvailableMb: number | null;
  /** Tasks the tightest process limit still allows, and which limit that is; null: unknown. */
  tasks: { left: number; limit: string } | null;
  /** This process's open-file limit (RLIMIT_NOFILE, inherited by every generator process). */
  openFilesPerProcess: number | null;
  /** File descriptors this host still has (fs.file-max less those allocated); null: unknown. */
  hostFilesLeft: number | null;
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function readNumber(path: string): number | null {
  const t = readText(path)?.trim();
  return t && /^\d+$/.test(t) ? Number(t) : null;
}

/** A process limit: its value, the tasks counted against it now, and its name. */
interface TaskLimit {
  max: number;
  used: number;
  name: string;
}

/** The limit with the fewest tasks left, as HostRoom gives it. */
export function tightestTaskLimit(limits: TaskLimit[]): HostRoom['tasks'] {
  let best: HostRoom['tasks'] = null;
  for (const l of limits) {
    const left = Math.max(0, l.max - l.used);
    if (!best || left < best.left)
      best = { left, limit: `${l.name} ${n(l.max)}, ${n(l.used)} in use` };
  }
  return best;
}

/** Tasks this user runs now (its processes' threads), for RLIMIT_NPROC. */
function tasksOfUser(uid: number): number {
  let count = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const status = readText(`/proc/${pid}/status`);
    if (!status || Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) !== uid) continue;
    count += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
  }
  return count;
}

/** The pids controller of this process's cgroup (v2, else v1): pids.max and pids.current. */
function cgroupPids(): TaskLimit | null {
  for (const line of (readText('/proc/self/cgroup') ?? '').split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m || (m[1] !== '' && !m[1].split(',').includes('pids'))) continue;
    const base = m[1] === '' ? '/sys/fs/cgroup' : '/sys/fs/cgroup/pids';
    // Inside a container the cgroup path may not be mounted below the root: try the root too.
    for (const dir of [`${base}${m[2]}`, base]) {
      const max = readNumber(`${dir}/pids.max`);
      const used = readNumber(`${dir}/pids.current`);
      if (max !== null && used !== null) return { max, used, name: "the cgroup's pids.max" };
    }
  }
  return null;
}

/** The task limits this process is held to on Linux (none elsewhere). */
function taskLimits(): TaskLimit[] {
  const limits: TaskLimit[] = [];
  // The fourth field of loadavg is running/total tasks: every thread of every process.
  const total = Number(/ \d+\/(\d+) /.exec(readText('/proc/loadavg') ?? '')?.[1] ?? NaN);
  if (Number.isFinite(total)) {
    const pidMax = readNumber('/proc/sys/kernel/pid_max');
    if (pidMax !== null) limits.push({ max: pidMax, used: total, name: 'kernel.pid_max' });
    const threadsMax = readNumber('/proc/sys/kernel/threads-max');
    if (threadsMax !== null)
      limits.push({ max: threadsMax, used: total, name: 'kernel.threads-max' });
  }
  const cg = cgroupPids();
  if (cg) limits.push(cg);
  // Root is not held to RLIMIT_NPROC (CAP_SYS_RESOURCE); everyone else is, per user.
  const uid = process.getuid?.();
  const nproc = /Max processes\s+(\d+|unlimited)/.exec(readText('/proc/self/limits') ?? '');
  if (uid !== undefined && uid !== 0 && nproc && nproc[1] !== 'unlimited')
    limits.push({ max: Number(nproc[1]), used: tasksOfUser(uid), name: 'ulimit -u' });
  return limits;
}

export function readHostRoom(openFilesPerProcess: number | null): HostRoom {
  let memAvailableMb: number | null = Math.round(freemem() / 1048576);
  const m = /MemAvailable:\s+(\d+) kB/.exec(readText('/proc/meminfo') ?? '');
  if (m) memAvailableMb = Math.round(Number(m[1]) / 1024);
  // file-nr: allocated, free (always 0 since Linux 2.6), maximum.
  const fileNr = (readText('/proc/sys/fs/file-nr') ?? '').trim().split(/\s+/).map(Number);
  const hostFilesLeft =
    fileNr.length === 3 && fileNr.every(Number.isFinite) ? fileNr[2] - fileNr[0] : null;
  return {
    memAvailableMb,
    tasks: tightestTaskLimit(taskLimits()),
    openFilesPerProcess:
      openFilesPerProcess !== null && Number.isFinite(openFilesPerProcess)
        ? openFilesPerProcess
        : null,
    hostFilesLeft,
  };
}

export interface HostFitAsk {
  /** Connections this machine holds (its segment's share of a split run). */
  connections: number;
  /** The run's connections, when this machine holds only a share of them (--segment). */
  totalConnections?: number;
  workers: number;
  /** Loopback source addresses the plan needs (0: none planned). */
  loopbackAddresses: number;
  /**
   * Source addresses the connections are spread over when not planned on loopback (those
   * listed, or 1: the kernel's default address towards one server address); 0: planned.
   */
  listedAddresses: number;
  /** Ports one source address gives (generator/limits portsPerAddressOf); Infinity: unknown. */
  portsPerAddress: number;
  /**
   * Ports each connection takes on those addresses: 2 when a link relay dials from the same
   * listed addresses the generator binds to; 1 otherwise (the kernel's default address picks a
   * port per destination, and the relay's legs go to different ones).
   */
  portsPerConnection: number;
  /** An emulated link (generator.link): rtcap's own process relays every connection. */
  link: boolean;
  /** The built-in server runs here too, one descriptor per connection. */
  builtinServer: boolean;
  room: HostRoom;
}

/** Each shortfall of the ask, one clause with its numbers. */
export function hostFitShortfalls(a: HostFitAsk): string[] {
  const { connections, workers, room } = a;
  const problems: string[] = [];
  const serverKb = a.builtinServer ? MIN_KB_PER_SERVER_CONNECTION : 0;
  const needMb =
    (connections * (MIN_KB_PER_CONNECTION + serverKb)) / 1024 + workers * MIN_MB_PER_PROCESS;
  const server = serverKb ? ` + the built-in server's ${serverKb} KB per connection` : '';
  if (room.memAvailableMb !== null && needMb > room.memAvailableMb)
    problems.push(
      `memory: at least ${n(needMb)} MB (${MIN_KB_PER_CONNECTION} KB per connection + ${MIN_MB_PER_PROCESS} MB per process × ${n(workers)} processes${server}) > ${n(room.memAvailableMb)} MB available`,
    );
  const tasks = workers * TASKS_PER_PROCESS;
  if (room.tasks !== null && tasks > room.tasks.left)
    problems.push(
      `processes: ${n(workers)} generator processes × ${TASKS_PER_PROCESS} tasks (threads) each = ${n(tasks)} > ${n(room.tasks.left)} tasks left (${room.tasks.limit})`,
    );
  problems.push(...portShortfalls(a), ...fileShortfalls(a));
  return problems;
}

function portShortfalls(a: HostFitAsk): string[] {
  const legs = a.portsPerConnection;
  const why = legs === 2 ? ' (2 per connection: the link relay dials from the same addresses)' : '';
  if (a.loopbackAddresses > MAX_LOOPBACK_ADDRESSES)
    return [
      `source ports: ${n(a.loopbackAddresses)} loopback source addresses needed${why}, 127.0.0.1–127.255.255.254 has ${n(MAX_LOOPBACK_ADDRESSES)}`,
    ];
  const given = a.listedAddresses * a.portsPerAddress;
  if (a.listedAddresses > 0 && a.connections * legs > given)
    return [
      `source ports: ${n(a.connections * legs)} ports needed${why} > ${n(given)} from ${n(a.listedAddresses)} source address${a.listedAddresses === 1 ? '' : 'es'} (${n(a.portsPerAddress)} each); list more in load.source_addresses`,
    ];
  return [];
}

function fileShortfalls(a: HostFitAsk): string[] {
  const { connections, room } = a;
  const problems: string[] = [];
  const relayed = 2 * connections + COORDINATOR_FD_RESERVE;
  if (a.link && room.openFilesPerProcess !== null && relayed > room.openFilesPerProcess)
    problems.push(
      `open files: the link relay holds 2 descriptors per connection in rtcap's own process, 2 × ${n(connections)} + ${COORDINATOR_FD_RESERVE} = ${n(relayed)} > its limit of ${n(room.openFilesPerProcess)} (ulimit -n)`,
    );
  const perConnection = 1 + (a.link ? 2 : 0) + (a.builtinServer ? 1 : 0);
  const parts = [
    'generator 1',
    ...(a.link ? ['link relay 2'] : []),
    ...(a.builtinServer ? ['built-in server 1'] : []),
  ];
  if (room.hostFilesLeft !== null && connections * perConnection > room.hostFilesLeft)
    problems.push(
      `open files: ${n(connections * perConnection)} descriptors (${perConnection} per connection: ${parts.join(', ')}) > ${n(room.hostFilesLeft)} left on this host (fs.file-max)`,
    );
  return problems;
}

/** Why this machine cannot hold the generator asked for (one line), or null. */
export function hostFitProblem(a: HostFitAsk): string | null {
  const problems = hostFitShortfalls(a);
  if (problems.length === 0) return null;
  const share =
    a.totalConnections !== undefined && a.totalConnections !== a.connections
      ? `${n(a.totalConnections)} connections, ${n(a.connections)} of them on this machine (its segment)`
      : `${n(a.connections)} connections`;
  return `load asks for ${share}, more than this machine can hold — ${problems.join('; ')}; lower load.steps.N.connections or split the run over machines (--segment)`;
}

/**
 * The generator processes asked for (--workers, load.workers) are what this machine cannot
 * hold, not the connections: `fitting` processes (rtcap's own choice) would fit.
 */
export function tooManyWorkersProblem(a: HostFitAsk, fitting: number): string {
  return `--workers / load.workers asks for ${n(a.workers)} generator processes for ${n(a.connections)} connections, more than this machine can hold — ${hostFitShortfalls(a).join('; ')}; lower --workers (load.workers): ${n(fitting)} process${fitting === 1 ? '' : 'es'} would do`;
}
