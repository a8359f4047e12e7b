/**
 * The /proc parsers behind the generator host's once-a-second figures: known texts give known
 * answers, and the live files of this (Linux) machine parse into plausible readings.
 */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  cpuBusyPct,
  parseCpuinfo,
  parseMeminfoUsed,
  parseNetDev,
  parseOsRelease,
  parseProcStat,
  readHostCounters,
} from '../../src/monitor/host-counters.js';

const STAT = 'cpu  100 10 50 800 20 5 15 0 7 0\ncpu0 50 5 25 400 10 2 7 0 3 0\nintr 1 2 3\n';
const NET_DEV = [
  'Inter-|   Receive                                                |  Transmit',
  ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed',
  '    lo: 1000 10 0 0 0 0 0 0 2000 20 0 0 0 0 0 0',
  '  eth0:12345 3 0 0 0 0 0 0 678 4 0 0 0 0 0 0',
  '',
].join('\n');

describe('parseProcStat', () => {
  it('counts busy as user+nice+system+irq+softirq+steal and total as busy+idle+iowait (guest is inside user)', () => {
    expect(parseProcStat(STAT)).toEqual({
      busy: 100 + 10 + 50 + 5 + 15 + 0,
      total: 180 + 800 + 20,
    });
    expect(parseProcStat('intr 1\n')).toBeNull();
  });
});

describe('cpuBusyPct', () => {
  it('is the busy share of the ticks between two readings', () => {
    expect(cpuBusyPct({ busy: 100, total: 1000 }, { busy: 130, total: 1100 })).toBe(30);
    expect(cpuBusyPct({ busy: 100, total: 1000 }, { busy: 100, total: 1000 })).toBeNull();
  });
});

describe('parseMeminfoUsed', () => {
  it('is MemTotal − MemAvailable in bytes', () => {
    expect(
      parseMeminfoUsed(
        'MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    400 kB\n',
      ),
    ).toBe(600 * 1024);
    expect(parseMeminfoUsed('MemTotal:       1000 kB\n')).toBeNull();
  });
});

describe('parseNetDev', () => {
  it('reads every interface, rx the first field after the colon and tx the ninth, a name glued to its colon included', () => {
    expect(parseNetDev(NET_DEV)).toEqual([
      { iface: 'lo', rxBytes: 1000, txBytes: 2000 },
      { iface: 'eth0', rxBytes: 12345, txBytes: 678 },
    ]);
  });
});

describe('readHostCounters', () => {
  it.runIf(process.platform === 'linux')(
    'reads this machine: lo present, memory in use below the total, CPU ticks counted',
    async () => {
      const c = await readHostCounters();
      expect(c.net.map((n) => n.iface)).toContain('lo');
      expect(c.memUsedBytes!).toBeGreaterThan(0);
      expect(c.memUsedBytes!).toBeLessThan(os.totalmem());
      expect(c.cpu!.total).toBeGreaterThan(c.cpu!.busy);
    },
  );
});

describe('parseCpuinfo / parseOsRelease', () => {
  it('model name, and physical cores as distinct (physical id, core id) pairs; NAME and VERSION_ID', () => {
    const block = (cpu: number, core: number) =>
      `processor\t: ${cpu}\nmodel name\t: AMD EPYC\nphysical id\t: 0\ncore id\t\t: ${core}\n`;
    expect(parseCpuinfo([block(0, 0), block(1, 0), block(2, 1)].join('\n'))).toEqual({
      model: 'AMD EPYC',
      physicalCores: 2,
    });
    expect(parseCpuinfo('')).toEqual({ model: null, physicalCores: null });
    expect(
      parseOsRelease(
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n',
      ),
    ).toBe('Debian GNU/Linux 12');
    expect(parseOsRelease('')).toBeNull();
  });
});
