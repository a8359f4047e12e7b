/**
 * The generator host's cumulative counters as Linux publishes them, parsed from the text of
 * /proc/stat, /proc/meminfo and /proc/net/dev. Reading three files a second costs next to
 * nothing; systeminformation's calls for the same figures spawned about twenty `cat`/`sh`
 * processes a second on this machine (≈ 65 ms of CPU a second, part of the fixed cost of a run).
 */
import { readFile } from 'node:fs/promises';

/**
 * All cores' jiffies since boot: busy (user, nice, system, irq, softirq, steal) and total (busy +
 * idle + iowait).
 */
export interface CpuTicks {
  busy: number;
  total: number;
}

/**
 * The aggregate `cpu` line of /proc/stat. guest and guest_nice are already inside user and
 * nice (the kernel counts them twice), so they are left out.
 */
export function parseProcStat(text: string): CpuTicks | null {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return null;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map((x) => Number(x) || 0);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/** Busy share of all cores between two readings, 0–100; null when no time passed. */
export function cpuBusyPct(prev: CpuTicks, cur: CpuTicks): number | null {
  const total = cur.total - prev.total;
  if (total <= 0) return null;
  return Math.min(100, Math.max(0, ((cur.busy - prev.busy) / total) * 100));
}

/** Memory in use, bytes: MemTotal − MemAvailable (what systeminformation calls `active`). */
export function parseMeminfoUsed(text: string): number | null {
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  };
  const total = kb('MemTotal');
  const available = kb('MemAvailable');
  return total === null || available === null ? null : (total - available) * 1024;
}

export interface IfaceBytes {
  iface: string;
  rxBytes: number;
  txBytes: number;
}

/**
 * Every interface's cumulative bytes from /proc/net/dev (rx is the 1st field after the colon, tx
 * the 9th).
 */
export function parseNetDev(text: string): IfaceBytes[] {
  const out: IfaceBytes[] = [];
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const f = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    if (f.length < 9) continue;
    out.push({ iface: line.slice(0, colon).trim(), rxBytes: f[0], txBytes: f[8] });
  }
  return out;
}

/**
 * The CPU model and the physical cores (distinct physical id + core id pairs) from /proc/cpuinfo.
 */
export function parseCpuinfo(text: string): { model: string | null; physicalCores: number | null } {
  const model = /^model name\s*:\s*(.+)$/m.exec(text)?.[1].trim() || null;
  const cores = new Set<string>();
  for (const block of text.split(/\n\s*\n/)) {
    const phys = /^physical id\s*:\s*(\d+)/m.exec(block)?.[1];
    const core = /^core id\s*:\s*(\d+)/m.exec(block)?.[1];
    if (phys !== undefined && core !== undefined) cores.add(`${phys}:${core}`);
  }
  return { model, physicalCores: cores.size || null };
}

/**
 * The distribution from /etc/os-release: NAME and VERSION_ID ("Debian GNU/Linux 12"); null when
 * absent.
 */
export function parseOsRelease(text: string): string | null {
  const field = (k: string) => new RegExp(`^${k}="?([^"\n]*)"?$`, 'm').exec(text)?.[1] ?? '';
  return [field('NAME'), field('VERSION_ID')].filter(Boolean).join(' ') || null;
}

export interface HostCounters {
  cpu: CpuTicks | null;
  memUsedBytes: number | null;
  net: IfaceBytes[];
}

/** One reading of the three files (Linux only; the caller knows the platform). */
export async function readHostCounters(): Promise<HostCounters> {
  const [stat, meminfo, netDev] = await Promise.all(
    ['/proc/stat', '/proc/meminfo', '/proc/net/dev'].map((f) => readFile(f, 'utf8')),
  );
  return {
    cpu: parseProcStat(stat),
    memUsedBytes: parseMeminfoUsed(meminfo),
    net: parseNetDev(netDev),
  };
}
