/**
 * The CPU and memory this process may use under its cgroup (v2 `cpu.max`/`memory.max`, or v1
 * `cpu.cfs_quota_us`/`memory.limit_in_bytes`): in a container the host's core count and
 * memory overstate what the generator can have. Null where there is no limit or no cgroup.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CgroupLimits {
  cpuCores: number | null;
  memoryMb: number | null;
}

const ROOT = '/sys/fs/cgroup';
/** v1 reports "no limit" as a huge page-aligned number. */
const UNLIMITED_BYTES = 2 ** 60;

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

/** The cgroup paths of this process by controller ('' for the v2 unified hierarchy). */
export function cgroupPaths(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    for (const c of m[1].split(',')) out.set(c, m[2]);
  }
  return out;
}

/**
 * The first file that exists: in the process's own cgroup, else at the mount root (namespaced
 * containers).
 */
function firstOf(candidates: string[]): string | null {
  for (const c of candidates) {
    const v = read(c);
    if (v !== null) return v;
  }
  return null;
}

export function parseCpuMax(text: string | null): number | null {
  if (!text) return null;
  const [quota, period] = text.split(/\s+/);
  if (quota === 'max' || !period) return null;
  const q = Number(quota);
  const p = Number(period);
  return q > 0 && p > 0 ? q / p : null;
}

export function parseMemoryBytes(text: string | null): number | null {
  if (!text || text === 'max') return null;
  const n = Number(text);
  return Number.isFinite(n) && n > 0 && n < UNLIMITED_BYTES ? Math.round(n / 1048576) : null;
}

export function cgroupLimits(procSelfCgroup = read('/proc/self/cgroup') ?? ''): CgroupLimits {
  const paths = cgroupPaths(procSelfCgroup);
  const unified = paths.get('');
  if (unified !== undefined && read(join(ROOT, 'cgroup.controllers')) !== null) {
    return {
      cpuCores: parseCpuMax(firstOf([join(ROOT, unified, 'cpu.max'), join(ROOT, 'cpu.max')])),
      memoryMb: parseMemoryBytes(
        firstOf([join(ROOT, unified, 'memory.max'), join(ROOT, 'memory.max')]),
      ),
    };
  }
  const cpuPath = paths.get('cpu') ?? '/';
  const memPath = paths.get('memory') ?? '/';
  const quota = firstOf([
    join(ROOT, 'cpu', cpuPath, 'cpu.cfs_quota_us'),
    join(ROOT, 'cpu', 'cpu.cfs_quota_us'),
  ]);
  const period = firstOf([
    join(ROOT, 'cpu', cpuPath, 'cpu.cfs_period_us'),
    join(ROOT, 'cpu', 'cpu.cfs_period_us'),
  ]);
  return {
    cpuCores: quota && period && Number(quota) > 0 ? parseCpuMax(`${quota} ${period}`) : null,
    memoryMb: parseMemoryBytes(
      firstOf([
        join(ROOT, 'memory', memPath, 'memory.limit_in_bytes'),
        join(ROOT, 'memory', 'memory.limit_in_bytes'),
      ]),
    ),
  };
}
