/**
 * Samples a local process tree from /proc: CPU (utime + stime) and RSS summed over the root
 * and its descendants, with PostgreSQL processes counted apart (seed 002's set-up gives the
 * realtime server and its database their own machines), and the server process nearest its
 * open-file limit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fullestOpenFiles } from './os-limits.js';
import { kernelUnits } from './sysconf.js';
import type { ResourceSample, ResourceSampler } from './types.js';

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  cpuTicks: number;
  rssPages: number;
}

export function readProcStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // comm is in parentheses and may contain spaces; fields after it are space-separated.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const comm = text.slice(open + 1, close);
  const f = text.slice(close + 2).split(' ');
  // f[0] = state (field 3); utime = field 14, stime = 15, rss = 24 (1-based)
  return {
    pid,
    ppid: Number(f[1]),
    comm,
    cpuTicks: Number(f[11]) + Number(f[12]),
    rssPages: Number(f[21]),
  };
}

function allStats(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = readProcStat(Number(name));
    if (s) out.push(s);
  }
  return out;
}

export function processTree(rootPid: number, stats: ProcStat[] = allStats()): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  let root: ProcStat | undefined;
  for (const s of stats) {
    if (s.pid === rootPid) root = s;
    const list = children.get(s.ppid);
    if (list) list.push(s);
    else children.set(s.ppid, [s]);
  }
  if (!root) return [];
  const out: ProcStat[] = [];
  const stack = [root];
  while (stack.length) {
    const s = stack.pop()!;
    out.push(s);
    for (const c of children.get(s.pid) ?? []) stack.push(c);
  }
  return out;
}

const isDb = (s: ProcStat) =>
  s.comm === 'postgres' || s.comm.startsWith('postgres:') || s.comm === 'pg_ctl';

export class ProcTreeSampler implements ResourceSampler {
  readonly source: string;
  private last: { t: number; cpu: number; dbCpu: number } | null = null;
  // CPU of processes that exited between samples is lost to /proc; track per pid to avoid negative
  // deltas.
  private lastByPid = new Map<number, number>();

  private readonly pageBytes: number;
  private readonly ticksPerS: number;

  constructor(
    readonly rootPid: number,
    units = kernelUnits(),
    source = `local process tree of pid ${rootPid} (/proc)`,
  ) {
    this.source = source;
    this.pageBytes = units.pageBytes;
    this.ticksPerS = units.clockTicksPerS;
  }

  async sample(): Promise<ResourceSample> {
    const t = Date.now();
    const tree = processTree(this.rootPid);
    if (tree.length === 0)
      return { t, cpuCores: null, rssMb: null, dbCpuCores: null, dbRssMb: null, openFiles: null };
    // The server's processes nearest their open-file limit (the database's are not the server's).
    const openFiles = fullestOpenFiles(tree.filter((s) => !isDb(s)).map((s) => s.pid));
    let cpuDelta = 0;
    let dbCpuDelta = 0;
    let rss = 0;
    let dbRss = 0;
    const seen = new Map<number, number>();
    const processes: Array<{ pid: number; rssPages: number }> = [];
    for (const s of tree) {
      const prev = this.lastByPid.get(s.pid);
      const d = prev === undefined ? (this.last ? s.cpuTicks : 0) : Math.max(0, s.cpuTicks - prev);
      seen.set(s.pid, s.cpuTicks);
      if (isDb(s)) {
        dbCpuDelta += d;
        dbRss += s.rssPages;
      } else {
        cpuDelta += d;
        rss += s.rssPages;
        processes.push({ pid: s.pid, rssPages: s.rssPages });
      }
    }
    this.lastByPid = seen;
    const hasDb = tree.some(isDb);
    const prev = this.last;
    this.last = { t, cpu: 0, dbCpu: 0 };
    const mb = (pages: number) => (pages * this.pageBytes) / 1048576;
    const perProcess = processes
      .sort((a, b) => a.pid - b.pid)
      .map((x) => ({ pid: x.pid, rssMb: mb(x.rssPages) }));
    if (!prev)
      return {
        t,
        cpuCores: null,
        rssMb: mb(rss),
        dbCpuCores: null,
        dbRssMb: hasDb ? mb(dbRss) : null,
        openFiles,
        processes: perProcess,
      };
    const seconds = Math.max(0.001, (t - prev.t) / 1000);
    return {
      t,
      cpuCores: cpuDelta / this.ticksPerS / seconds,
      rssMb: mb(rss),
      dbCpuCores: hasDb ? dbCpuDelta / this.ticksPerS / seconds : null,
      dbRssMb: hasDb ? mb(dbRss) : null,
      openFiles,
      processes: perProcess,
    };
  }
}
