/**
 * The generator host over a step's steady window (StepResult.generator.host): mean CPU %,
 * load average and memory in use, and the mean bytes per second its network interfaces sent
 * and received — the generator host's egress, which the payload-size scenario shows beside the
 * application-level egress (docs/METHOD.md §3: at large payloads the sender's link is the limit).
 */
import type { HostSample } from '../monitor/host.js';
import type { StepResult } from '../result/result.js';
import { r1, r3 } from '../util/round.js';
import { mean } from './stats.js';
import type { StepWindow } from './window.js';

export type HostFigures = NonNullable<StepResult['generator']['host']>;

export function hostFigures(samples: readonly HostSample[], w: StepWindow): HostFigures | null {
  // A sample at t covers the second before t, as the server samples do.
  const inWindow = samples.filter((s) => s.t > w.steadyStart && s.t <= w.steadyEnd + 1000);
  if (inWindow.length === 0) return null;
  const of = (f: (s: HostSample) => number | null) =>
    mean(inWindow.map(f).filter((v): v is number => v !== null));
  const tx = of((s) => s.netTxBytesPerS);
  const rx = of((s) => s.netRxBytesPerS);
  const cpu = of((s) => s.cpuPct);
  const memMb = of((s) => s.memUsedMb);
  return {
    cpu_pct: cpu === null ? null : r1(cpu),
    load_avg_1m: r1(of((s) => s.loadAvg1m) ?? 0),
    mem_used_mb: memMb === null ? null : Math.round(memMb),
    net_tx_mib_per_s: tx === null ? null : r3(tx / 1048576),
    net_rx_mib_per_s: rx === null ? null : r3(rx / 1048576),
    interfaces: inWindow[inWindow.length - 1].interfaces,
    samples: inWindow.length,
  };
}
