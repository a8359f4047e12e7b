/**
 * The generator's own limits on this host: each process has an open-file limit
 * that cannot be raised here, and one source address reaches one server port through at most
 * the ephemeral port range. rtcap prints them at start and plans workers and source
 * addresses around them.
 */
import { readFileSync } from 'node:fs';

export interface GeneratorLimits {
  openFilesPerProcess: number | null;
  portRange: [number, number] | null;
  ephemeralPorts: number | null;
}

export function readLimits(): GeneratorLimits {
  let openFiles: number | null = null;
  try {
    const m = /Max open files\s+(\d+|unlimited)/.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (m) openFiles = m[1] === 'unlimited' ? Infinity : Number(m[1]);
  } catch {
    /* not Linux */
  }
  let portRange: [number, number] | null = null;
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (lo > 0 && hi >= lo) portRange = [lo, hi];
  } catch {
    /* not Linux */
  }
  return {
    openFilesPerProcess: openFiles,
    portRange,
    ephemeralPorts: portRange ? portRange[1] - portRange[0] + 1 : null,
  };
}

/** File descriptors a generator process needs besides its sockets (stdio, IPC, epoll, libuv). */
const FD_RESERVE = 200;
/** Ports kept free on each source address for everything else on the host. */
const PORT_RESERVE = 1000;
/**
 * Share of the ephemeral range one loopback source address carries. The kernel finds a free
 * port for each connect by scanning the range (starting with one parity half), and that scan
 * grows with how full the range is: measured here, 20,000 connections from
 * one address stalled a generator process for 13 s in connect() between 11,000 and 18,000
 * open, and the same 20,000 over 4 addresses (5,000 each) did not. Loopback addresses cost
 * nothing to add, so each carries at most a quarter of the range.
 */
const LOOPBACK_PORT_FILL = 0.25;

/**
 * Ports one source address gives the generator: the ephemeral range less a reserve for the rest
 * of the host (at most half of a small range, which could leave 0 or less); unknown: Infinity.
 */
export function portsPerAddressOf(limits: GeneratorLimits): number {
  const ports = limits.ephemeralPorts;
  return ports ? Math.max(ports - PORT_RESERVE, Math.ceil(ports / 2)) : Infinity;
}

/** Loopback addresses rtcap may plan: all of 127/8 but its network and broadcast addresses. */
export const MAX_LOOPBACK_ADDRESSES = 2 ** 24 - 2;

/**
 * The nth planned loopback source address (from 1): 127.0.0.1 … 127.0.0.255, 127.0.1.0, …,
 * 127.255.255.254. Linux answers on all of 127/8 (lo holds 127.0.0.1/8), so each needs no set-up.
 */
export function loopbackAddress(n: number): string {
  return `127.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

export interface GeneratorPlan {
  workers: number;
  sourceAddresses: string[];
  /** Loopback source addresses the connections need (0: none planned); may exceed 127/8. */
  loopbackAddressesNeeded: number;
  maxConnectionsPerWorker: number;
  warnings: string[];
}

/** What planGenerator plans for. */
export interface GeneratorPlanOptions {
  maxConnections: number;
  requestedWorkers: number | 'auto';
  requestedSourceAddresses?: string[];
  loopbackTarget: boolean;
  limits: GeneratorLimits;
  perWorkerDefault?: number;
  /**
   * Ports each connection takes on the source addresses: 2 with an emulated link, whose relay
   * dials the target from the same addresses the generator dials the relay from.
   */
  portsPerConnection?: number;
  /** false: count the loopback addresses needed without listing them (the host-fit check). */
  listAddresses?: boolean;
}

/**
 * Generator processes: with 'auto', enough for the default per worker under the open-file limit;
 * a requested count over that limit is kept, with a warning.
 */
function planWorkers(opts: GeneratorPlanOptions, warnings: string[]): number {
  const fdCap =
    opts.limits.openFilesPerProcess && Number.isFinite(opts.limits.openFilesPerProcess)
      ? opts.limits.openFilesPerProcess - FD_RESERVE
      : Infinity;
  const perWorkerDefault = Math.min(opts.perWorkerDefault ?? 15_000, fdCap);
  if (opts.requestedWorkers === 'auto')
    return Math.max(1, Math.ceil(opts.maxConnections / perWorkerDefault));
  const workers = opts.requestedWorkers;
  const per = Math.ceil(opts.maxConnections / workers);
  if (per > fdCap) {
    warnings.push(
      `${per} connections per worker exceed the open-file limit (${opts.limits.openFilesPerProcess} per process): expect EMFILE; use --workers ${Math.ceil(opts.maxConnections / fdCap)} or more`,
    );
  }
  return workers;
}

/**
 * Source addresses: the requested ones (a warning when their ports are too few), or loopback
 * addresses when one address's ephemeral ports cannot carry the connections to a loopback
 * target (a warning for any other target).
 */
function planSourceAddresses(
  opts: GeneratorPlanOptions,
  warnings: string[],
): { sourceAddresses: string[]; loopbackAddressesNeeded: number } {
  const requested = opts.requestedSourceAddresses ?? [];
  const ports = opts.limits.ephemeralPorts;
  const portsPerAddress = portsPerAddressOf(opts.limits);
  const portUses = opts.maxConnections * (opts.portsPerConnection ?? 1);
  if (requested.length > 0) {
    if (portUses > requested.length * portsPerAddress) {
      warnings.push(
        `${requested.length} source addresses give ~${requested.length * portsPerAddress} ports, fewer than ${opts.maxConnections} connections`,
      );
    }
    return { sourceAddresses: requested, loopbackAddressesNeeded: 0 };
  }
  const perAddress =
    opts.loopbackTarget && ports
      ? Math.max(1, Math.min(portsPerAddress, Math.floor(ports * LOOPBACK_PORT_FILL)))
      : portsPerAddress;
  const needed = Math.ceil(portUses / perAddress);
  if (needed <= 1) return { sourceAddresses: requested, loopbackAddressesNeeded: 0 };
  if (!opts.loopbackTarget) {
    warnings.push(
      `${opts.maxConnections} connections need ${Math.ceil(portUses / portsPerAddress)} source addresses (${opts.limits.ephemeralPorts} ephemeral ports each); list them in load.source_addresses`,
    );
    return { sourceAddresses: requested, loopbackAddressesNeeded: 0 };
  }
  // Loopback answers on all of 127/8, so extra source addresses need no set-up; more than
  // 127/8 holds is refused before the run (load/host-fit), never planned.
  const count = opts.listAddresses === false ? 0 : Math.min(needed, MAX_LOOPBACK_ADDRESSES);
  return {
    sourceAddresses: Array.from({ length: count }, (_, i) => loopbackAddress(i + 1)),
    loopbackAddressesNeeded: needed,
  };
}

/** The generator's processes and source addresses for `maxConnections`, with any warnings. */
export function planGenerator(opts: GeneratorPlanOptions): GeneratorPlan {
  const warnings: string[] = [];
  const workers = planWorkers(opts, warnings);
  const { sourceAddresses, loopbackAddressesNeeded } = planSourceAddresses(opts, warnings);
  return {
    workers,
    sourceAddresses,
    loopbackAddressesNeeded,
    maxConnectionsPerWorker: Math.ceil(opts.maxConnections / workers),
    warnings,
  };
}
