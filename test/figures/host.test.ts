import { describe, expect, it } from 'vitest';
import type { HostSample } from '../../src/monitor/host.js';
import { hostFigures } from '../../src/figures/host.js';

const w = { rampStart: 0, rampEnd: 0, steadyStart: 10_000, steadyEnd: 13_000, drainEnd: 14_000 };
const s = (t: number, tx: number | null, cpu = 50): HostSample => ({
  t,
  cpuPct: cpu,
  loadAvg1m: 1,
  memUsedMb: 100,
  netTxBytesPerS: tx,
  netRxBytesPerS: tx === null ? null : tx / 2,
  interfaces: ['eth0'],
});

describe('hostFigures', () => {
  it('means the samples of the steady window only, in MiB/s', () => {
    const f = hostFigures(
      [
        s(10_000, 999 * 1048576, 99),
        s(11_000, 1048576),
        s(12_000, 3 * 1048576),
        s(13_000, null),
        s(14_000, 2 * 1048576),
        s(15_000, 999),
      ],
      w,
    )!;
    expect(f.samples).toBe(4);
    expect(f.net_tx_mib_per_s).toBe(2);
    expect(f.net_rx_mib_per_s).toBe(1);
    expect(f.cpu_pct).toBe(50);
    expect(f.interfaces).toEqual(['eth0']);
  });
  it('is null without samples in the window, and rates null when none was known', () => {
    expect(hostFigures([s(1000, 5)], w)).toBeNull();
    expect(hostFigures([s(11_000, null)], w)!.net_tx_mib_per_s).toBeNull();
  });
});
