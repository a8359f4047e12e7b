/**
 * What a local server can actually use: its CPU affinity
 * (/proc/<pid>/status Cpus_allowed_list, as set by `taskset` / --server-cpus), its cgroup CPU
 * quota (v2 cpu.max, v1 cpu.cfs_quota_us ÷ cpu.cfs_period_us) and memory limit (v2 memory.max,
 * v1 memory.limit_in_bytes), else the declared memory. Server CPU % and memory % divide by this
 * basis; a remote server's basis is the declared instance, marked "declared".
 */
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { r2 } from '../util/round.js';

export interface ServerBasis {
  vcpus: number;
  memory_mb: number;
  /**
   * Where vcpus came from: the CPU affinity, a cgroup quota tighter than it, or the declared
   * instance.
   */
  source: 'affinity' | 'cgroup' | 'declared';
  /** Where memory_mb came from: a cgroup limit, else the declared instance. */
  memory_source: 'cgroup' | 'declared';
}

type Read = (path: string) => string | null;
const readOrNull: Read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** "0-1,4,6-7" → 5. */
export function cpuCount(list: string): number {
  let n = 0;
  for (const part of list.trim().split(',')) {
    if (!part) continue;
    const [a, b] = part.split('-').map(Number);
    n += b === undefined ? 1 : b - a + 1;
  }
  return n;
}

/** cgroup v2 cpu.max "quota period" → cores; "max …" → null. */
export function cpuMaxCores(text: string): number | null {
  const [quota, period] = text.trim().split(/\s+/);
  if (quota === 'max' || !quota || !period) return null;
  const q = Number(quota);
  const p = Number(period);
  return q > 0 && p > 0 ? q / p : null;
}

/**
 * A memory limit in bytes → MB; "max", or a v1 "unlimited" value above the host's memory → null.
 */
export function memoryLimitMb(text: string, hostMb: number): number | null {
  const t = text.trim();
  if (t === 'max' || t === '') return null;
  const mb = Number(t) / 1048576;
  return Number.isFinite(mb) && mb > 0 && mb < hostMb ? mb : null;
}

/**
 * The cgroup directories of a pid for a controller (v2: the unified tree), leaf first, up to the
 * root.
 */
function cgroupDirs(pid: number, controller: 'cpu' | 'memory', read: Read): string[] {
  const text = read(`/proc/${pid}/cgroup`);
  if (!text) return [];
  let root: string | null = null;
  let rel: string | null = null;
  for (const line of text.trim().split('\n')) {
    const [, ctrls, path] = line.split(':');
    if (ctrls === undefined || path === undefined) continue;
    if (ctrls.split(',').includes(controller)) {
      root = `/sys/fs/cgroup/${ctrls}`;
      rel = path;
    } else if (ctrls === '' && root === null) {
      root = '/sys/fs/cgroup';
      rel = path;
    }
  }
  if (root === null || rel === null) return [];
  const out: string[] = [];
  for (let p = rel; ; p = dirname(p)) {
    out.push(join(root, p));
    if (p === '/' || p === '.' || p === '') break;
  }
  return out;
}

function cgroupCpus(pid: number, read: Read): number | null {
  let best: number | null = null;
  for (const dir of cgroupDirs(pid, 'cpu', read)) {
    const v2 = read(join(dir, 'cpu.max'));
    let cores = v2 !== null ? cpuMaxCores(v2) : null;
    if (v2 === null) {
      const quota = Number(read(join(dir, 'cpu.cfs_quota_us')) ?? -1);
      const period = Number(read(join(dir, 'cpu.cfs_period_us')) ?? 0);
      cores = quota > 0 && period > 0 ? quota / period : null;
    }
    if (cores !== null && (best === null || cores < best)) best = cores;
  }
  return best;
}

function cgroupMemoryMb(pid: number, hostMb: number, read: Read): number | null {
  let best: number | null = null;
  for (const dir of cgroupDirs(pid, 'memory', read)) {
    const text = read(join(dir, 'memory.max')) ?? read(join(dir, 'memory.limit_in_bytes'));
    const mb = text !== null ? memoryLimitMb(text, hostMb) : null;
    if (mb !== null && (best === null || mb < best)) best = mb;
  }
  return best;
}

/**
 * Combines the readings: the tighter of affinity and cgroup quota; a cgroup memory limit, else the
 * declared memory.
 */
export function basisFrom(
  r: {
    affinityCpus: number | null;
    cgroupCpus: number | null;
    cgroupMemoryMb: number | null;
    hostMemoryMb: number;
  },
  declared: { vcpus: number; memory_mb: number },
): ServerBasis {
  let vcpus = declared.vcpus;
  let source: ServerBasis['source'] = 'declared';
  if (r.affinityCpus !== null) {
    vcpus = r.affinityCpus;
    source = 'affinity';
  }
  if (r.cgroupCpus !== null && (r.affinityCpus === null || r.cgroupCpus < r.affinityCpus)) {
    vcpus = r2(r.cgroupCpus);
    source = 'cgroup';
  }
  // Without a memory limit the server may take the host's memory, but a capacity planner sizes
  // the declared instance: memory % stays of the declared memory, marked so.
  if (r.cgroupMemoryMb !== null)
    return { vcpus, memory_mb: Math.round(r.cgroupMemoryMb), source, memory_source: 'cgroup' };
  return { vcpus, memory_mb: declared.memory_mb, source, memory_source: 'declared' };
}

/** The basis of a local server process (built-in, or target.server_pid). */
export function readServerBasis(
  pid: number,
  declared: { vcpus: number; memory_mb: number },
  read: Read = readOrNull,
  hostMemoryMb = totalmem() / 1048576,
): ServerBasis {
  const status = read(`/proc/${pid}/status`);
  const m = status ? /^Cpus_allowed_list:\s*(\S+)/m.exec(status) : null;
  return basisFrom(
    {
      affinityCpus: m ? cpuCount(m[1]) : null,
      cgroupCpus: cgroupCpus(pid, read),
      cgroupMemoryMb: cgroupMemoryMb(pid, hostMemoryMb, read),
      hostMemoryMb,
    },
    declared,
  );
}

/** A remote server: what the profile declares. */
export function declaredBasis(declared: { vcpus: number; memory_mb: number }): ServerBasis {
  return {
    vcpus: declared.vcpus,
    memory_mb: declared.memory_mb,
    source: 'declared',
    memory_source: 'declared',
  };
}

/** Why the measured basis and the declared instance disagree, or null. */
export function basisWarning(
  b: ServerBasis,
  declared: { vcpus: number; memory_mb: number },
): string | null {
  if (b.source === 'declared') return null;
  const parts: string[] = [];
  if (b.vcpus !== declared.vcpus)
    parts.push(`${b.vcpus} vCPU (${b.source}) vs ${declared.vcpus} declared`);
  if (b.memory_source === 'cgroup' && b.memory_mb !== declared.memory_mb)
    parts.push(`${b.memory_mb} MB (cgroup) vs ${declared.memory_mb} MB declared`);
  return parts.length
    ? `the server can use ${parts.join(', ')}: CPU % and memory % are of what it can use`
    : null;
}
