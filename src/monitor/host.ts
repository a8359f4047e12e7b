/**
 * The generator host, with systeminformation: what it is (CPU model and cores, memory, OS,
 * under which cgroup limits) and, once a second, how busy it is — CPU %, load average, memory
 * in use, and the bytes per second its network interfaces carry. The interface throughput is
 * the generator host's egress (tx) and ingress (rx): for a loopback target the `lo` interface
 * (which then carries both directions of every socket), otherwise every other interface.
 */
import os from 'node:os';
import si from 'systeminformation';
import { cgroupLimits } from './cgroup.js';

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

export async function describeHost(): Promise<HostDescription> {
  const [cpu, mem, osInfo] = await Promise.all([si.cpu(), si.mem(), si.osInfo()]);
  const limits = cgroupLimits();
  return {
    cores: cpu.cores || os.cpus().length,
    physical_cores: cpu.physicalCores || null,
    cpu_model: [cpu.manufacturer, cpu.brand].filter(Boolean).join(' ') || null,
    memory_mb: Math.round(mem.total / 1048576),
    cgroup_cpu_cores: limits.cpuCores,
    cgroup_memory_mb: limits.memoryMb,
    node: process.version,
    platform: `${osInfo.platform} ${osInfo.kernel}${osInfo.distro ? ` (${osInfo.distro} ${osInfo.release})` : ''}`,
    load_avg_1m: Math.round(os.loadavg()[0] * 100) / 100,
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
  /** Bytes per second over the interval before t, summed over `interfaces`; null on the first sample. */
  netTxBytesPerS: number | null;
  netRxBytesPerS: number | null;
  interfaces: string[];
}

export class HostSampler {
  constructor(private readonly loopbackTarget: boolean) {}

  /** Which interfaces carry the target's traffic. */
  pick(iface: string): boolean {
    return this.loopbackTarget ? iface === 'lo' : iface !== 'lo';
  }

  async sample(): Promise<HostSample> {
    const [load, mem, net] = await Promise.all([si.currentLoad(), si.mem(), si.networkStats('*')]);
    const used = net.filter((n) => this.pick(n.iface));
    // systeminformation gives per-second rates from its previous call; null (or negative) before it has one.
    const rate = (f: (n: (typeof net)[number]) => number | null) => {
      const xs = used.map(f);
      return xs.length && xs.every((x) => typeof x === 'number' && x >= 0) ? (xs as number[]).reduce((a, b) => a + b, 0) : null;
    };
    return {
      t: Date.now(),
      cpuPct: Number.isFinite(load.currentLoad) ? Math.round(load.currentLoad * 10) / 10 : null,
      loadAvg1m: Math.round(os.loadavg()[0] * 100) / 100,
      memUsedMb: mem.active ? Math.round(mem.active / 1048576) : null,
      netTxBytesPerS: rate((n) => n.tx_sec),
      netRxBytesPerS: rate((n) => n.rx_sec),
      interfaces: used.map((n) => n.iface),
    };
  }
}
