import { describe, expect, it } from 'vitest';
import { resourcesChart } from '../../../src/report/charts/resources.js';
import { makeRun, makeStep } from '../../fixtures/index.js';

describe('resourcesChart', () => {
  it('names where the server figures came from; nothing sampled: no chart', () => {
    const run = makeRun('broadcast-public', [
      makeStep(0),
      makeStep(1, { verdict: 'generator-bound' }),
    ]);
    const chart = resourcesChart(run);
    expect(chart.svg).toContain('1 (gen-bound)');
    expect(chart.caption).toMatch(/^Server figures from local pid;/);
    const bare = makeRun('broadcast-public', [
      makeStep(0, {
        server: { cpu_pct: null, mem_pct: null },
        generator: { cpu_pct: null, event_loop_lag_p99_ms: null },
      }),
    ]);
    expect(resourcesChart(bare).svg).toBeNull();
  });
});
