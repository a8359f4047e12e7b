import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../../../src/model/analysis.js';
import {
  cpuVsDeliveriesChart,
  memoryVsConnectionsChart,
} from '../../../src/report/charts/resource-fit.js';
import { loadRun } from '../../fixtures/index.js';

describe('resource fit charts', () => {
  it('carry the fit text and the safe line', () => {
    const run = loadRun('seed-002-s1.1-connections');
    const mem = memoryVsConnectionsChart(run, analyzeRun(run));
    expect(mem.svg).toContain('safe 85 %');
    expect(mem.caption).toContain('Memory ≈ 34.0 % + 2.40 pp × connections ÷ 1,000');
    const deliveries = loadRun('seed-002-s1.2-deliveries');
    const cpu = cpuVsDeliveriesChart(deliveries, analyzeRun(deliveries));
    expect(cpu.svg).toContain('safe 70 %');
  });

  it('no step with both figures: no chart, and the reason', () => {
    const run = loadRun('seed-002-s1.2-deliveries');
    expect(memoryVsConnectionsChart(run, analyzeRun(run))).toMatchObject({
      svg: null,
      caption: 'No step had both connections and server memory measured.',
    });
  });
});
