/**
 * The two kernel constants /proc figures are counted in: the page size (RSS in
 * /proc/PID/stat is in pages) and USER_HZ (utime and stime are in clock ticks). Neither is
 * hard-coded: ARM64 and POWER kernels commonly use 16 or 64 KiB pages. Read once from
 * `getconf` (sysconf, exact); where getconf is missing (minimal containers) derived from /proc.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface KernelUnits {
  pageBytes: number;
  clockTicksPerS: number;
  /** How they were found: "getconf" or "derived from /proc". */
  source: string;
}

let cached: KernelUnits | null = null;

export function kernelUnits(): KernelUnits {
  if (cached) return cached;
  const pageBytes = getconf('PAGESIZE');
  const ticks = getconf('CLK_TCK');
  cached =
    pageBytes !== null && ticks !== null
      ? { pageBytes, clockTicksPerS: ticks, source: 'getconf' }
      : {
          pageBytes: pageBytes ?? derivePageBytes(),
          clockTicksPerS: ticks ?? deriveClockTicks(),
          source: 'derived from /proc',
        };
  return cached;
}

function getconf(name: string): number | null {
  try {
    const v = Number(
      execFileSync('getconf', [name], {
        encoding: 'utf8',
        timeout: 2000,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim(),
    );
    return Number.isInteger(v) && v > 0 ? v : null;
  } catch {
    return null;
  }
}

/**
 * VmRSS (kB, /proc/self/status) over resident pages (/proc/self/statm), to the nearest power of
 * two.
 */
export function derivePageBytes(): number {
  const rssKb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  const pages = Number(readFileSync('/proc/self/statm', 'utf8').split(' ')[1]);
  if (!(rssKb > 0 && pages > 0)) return 4096;
  return 2 ** Math.round(Math.log2((rssKb * 1024) / pages));
}

const KNOWN_HZ = [100, 250, 300, 1000, 1024];

/**
 * This process's start time in ticks since boot (/proc/self/stat field 22) over its start in
 * seconds since boot (/proc/uptime minus its own uptime), to the nearest USER_HZ in use.
 */
export function deriveClockTicks(): number {
  const text = readFileSync('/proc/self/stat', 'utf8');
  const startTicks = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[19]);
  const bootS = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) - process.uptime();
  if (!(startTicks > 0 && bootS > 1)) return 100;
  const hz = startTicks / bootS;
  return KNOWN_HZ.reduce((best, h) => (Math.abs(h - hz) < Math.abs(best - hz) ? h : best));
}
