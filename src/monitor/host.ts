/**
 * The generator host: what it is (CPU model and cores, memory, OS, under which cgroup limits;
 * from systeminformation, once per run) and, once a second, how busy it is (on Linux from
 * /proc, monitor/host-counters; elsewhere from systeminformation) — CPU %, load average, memory
 * in use, and the bytes per second its network interfaces carry. The interface throughput is
 * the generator host's egress (tx) and ingress (rx): for a loopback target the `lo` interface
 * (which then carries both directions of every socket), otherwise every other interface.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import {
  cpuBusyPct,
  parseCpuinfo,
  parseOsRelease,
  readHostCounters,
  type CpuTicks,
  type IfaceBytes,
} from './host-counters.js';
import { cgroupLimits } from './cgroup.js';
import { r1, r2 } from '../util/round.js';

export interface HostDescription {
  cores: number;
  physical_cores: number | null;
  cpu_model: string | null;
  memory_mb: number;
  /** cgroup CPU quota in cores, null when unlimited. */
  cgroup_cpu_cores: number | null;
  /** cgroup memory limit, null when unlimited. */
  cgroup_memory_mb: number | null;
  node: string;
  platform: string;
  /** 1-minute load average when the run started. */
  load_avg_1m: number;
}

/** systeminformation, loaded when first asked: on Linux the per-second samples do without it. */
const loadSi = async () => (await import('systeminformation')).default;

export async function describeHost(): Promise<HostDescription> {
  if (process.platform === 'linux') {
    // From files: systeminformation spawns lscpu, dmesg, hostname and a dozen shells for this (≈
    // 0.15 CPU s a run).
    const [cpuinfo, osRelease] = await Promise.all([
      readFile('/proc/cpuinfo', 'utf8').catch(() => ''),
      readFile('/etc/os-release', 'utf8').catch(() => ''),
    ]);
    const c = parseCpuinfo(cpuinfo);
    const distro = parseOsRelease(osRelease);
    return describe({
      cores: os.cpus().length,
      physicalCores: c.physicalCores,
      model: c.model ?? (os.cpus()[0]?.model || null),
      memBytes: os.totalmem(),
      platform: `linux ${os.release()}${distro ? ` (${distro})` : ''}`,
    });
  }
  const si = await loadSi();
  const [cpu, mem, osInfo] = await Promise.all([si.cpu(), si.mem(), si.osInfo()]);
  return describe({
    cores: cpu.cores || os.cpus().length,
    physicalCores: cpu.physicalCores || null,
    model: [cpu.manufacturer, cpu.brand].filter(Boolean).join(' ') || null,
    memBytes: mem.total,
    platform: `${osInfo.platform} ${osInfo.kernel}${osInfo.distro ? ` (${osInfo.distro} ${osInfo.release})` : ''}`,
  });
}

function describe(h: {
  cores: number;
  physicalCores: number | null;
  model: string | null;
  memBytes: number;
  platform: string;
}): HostDescription {
  const limits = cgroupLimits();
  return {
    cores: h.cores,
    physical_cores: h.physicalCores,
    cpu_model: h.model,
    memory_mb: Math.round(h.memBytes / 1048576),
    cgroup_cpu_cores: limits.cpuCores,
    cgroup_memory_mb: limits.memoryMb,
    node: process.version,
    platform: h.platform,
    load_avg_1m: r2(os.loadavg()[0]),
  };
}

export interface HostSample {
  /** Epoch ms. */
  t: number;
  /** Busy share of all cores, 0–100. */
  cpuPct: number | null;
  loadAvg1m: number;
  /** Memory in use (active), MiB. */
  memUsedMb: number | null;
  /**
   * Bytes per second over the interval before t, summed over `interfaces`; null on the first
   * sample.
   */
  netTxBytesPerS: number | null;
  netRxBytesPerS: number | null;
  interfaces: string[];
}

export class HostSampler {
  /** The interface byte counters at the previous sample, with the time they were read. */
  private last: { t: number; tx: number; rx: number } | null = null;

  constructor(private readonly loopbackTarget: boolean) {}

  /** Which interfaces carry the target's traffic. */
  pick(iface: string): boolean {
    return this.loopbackTarget ? iface === 'lo' : iface !== 'lo';
  }

  /**
   * The CPU counters at the previous sample (Linux): CPU % is over the interval between samples.
   */
  private lastCpu: CpuTicks | null = null;

  async sample(): Promise<HostSample> {
    // On Linux from /proc (host-counters); elsewhere through systeminformation.
    const { cpuPct, memUsedBytes, net } =
      process.platform === 'linux' ? await this.readLinux() : await readWithSi();
    const t = Date.now();
    // Rates from cumulative byte counters and our own clock, over the interval since the previous
    // sample.
    const used = net.filter((n) => this.pick(n.iface));
    const tx = used.reduce((a, n) => a + n.txBytes, 0);
    const rx = used.reduce((a, n) => a + n.rxBytes, 0);
    let netTxBytesPerS: number | null = null;
    let netRxBytesPerS: number | null = null;
    if (this.last && t - this.last.t >= 500 && tx >= this.last.tx && rx >= this.last.rx) {
      const seconds = (t - this.last.t) / 1000;
      netTxBytesPerS = (tx - this.last.tx) / seconds;
      netRxBytesPerS = (rx - this.last.rx) / seconds;
    }
    if (!this.last || t - this.last.t >= 500) this.last = { t, tx, rx };
    return {
      t,
      cpuPct: cpuPct !== null && Number.isFinite(cpuPct) ? r1(cpuPct) : null,
      loadAvg1m: r2(os.loadavg()[0]),
      memUsedMb: memUsedBytes ? Math.round(memUsedBytes / 1048576) : null,
      netTxBytesPerS,
      netRxBytesPerS,
      interfaces: used.map((n) => n.iface),
    };
  }

  private async readLinux(): Promise<{
    cpuPct: number | null;
    memUsedBytes: number | null;
    net: IfaceBytes[];
  }> {
    const c = await readHostCounters();
    // The first sample has no interval to be busy over: null, not the average since boot.
    const cpuPct = c.cpu && this.lastCpu ? cpuBusyPct(this.lastCpu, c.cpu) : null;
    if (c.cpu) this.lastCpu = c.cpu;
    return { cpuPct, memUsedBytes: c.memUsedBytes, net: c.net };
  }
}

async function readWithSi(): Promise<{
  cpuPct: number | null;
  memUsedBytes: number | null;
  net: IfaceBytes[];
}> {
  const si = await loadSi();
  const [load, mem] = await Promise.all([si.currentLoad(), si.mem()]);
  const net = await si.networkStats('*');
  return {
    cpuPct: load.currentLoad,
    memUsedBytes: mem.active || null,
    net: net.map((n) => ({ iface: n.iface, rxBytes: n.rx_bytes, txBytes: n.tx_bytes })),
  };
}
