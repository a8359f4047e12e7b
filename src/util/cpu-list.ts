/**
 * CPU lists as `taskset` takes them ("1", "0-3", "0,2-3") and the CPUs this process may run
 * on, so a pinning request is checked before anything starts instead of failing after the
 * built-in server is up.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** The longest list read (a range past it is not a CPU list of any machine). */
const MAX_CPUS = 65_536;

/** The CPUs of a list, ascending; null when it is not a list (or a range runs backwards). */
export function parseCpuList(list: string): number[] | null {
  const cpus = new Set<number>();
  for (const part of list.split(',')) {
    const m = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(part);
    if (!m) return null;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from || to - from >= MAX_CPUS) return null;
    for (let c = from; c <= to; c++) cpus.add(c);
  }
  return cpus.size ? [...cpus].sort((a, b) => a - b) : null;
}

/**
 * The CPUs this process may use, as a list: its affinity (/proc/self/status Cpus_allowed_list,
 * set by taskset or a container's cpuset), else all `availableParallelism()` CPUs.
 */
export function allowedCpuList(): string {
  try {
    const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m && parseCpuList(m[1])) return m[1];
  } catch {
    /* not Linux: the count Node gives */
  }
  const n = availableParallelism();
  return n === 1 ? '0' : `0-${n - 1}`;
}

/** The CPUs of `wanted` outside `allowed` (both lists); every CPU when `wanted` is not a list. */
export function cpusOutside(wanted: string, allowed: string): number[] {
  const may = new Set(parseCpuList(allowed) ?? []);
  return (parseCpuList(wanted) ?? []).filter((c) => !may.has(c));
}
