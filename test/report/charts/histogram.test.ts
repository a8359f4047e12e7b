import { describe, expect, it } from 'vitest';
import { latencyHistogramChart } from '../../../src/report/charts/histogram.js';
import { loadRun } from '../../fixtures/index.js';

describe('latencyHistogramChart', () => {
  it('one bar series per step over the bucket labels', () => {
    const h = latencyHistogramChart(loadRun('run-a'));
    expect(h.svg).toContain('≤ 1 ms');
    expect(h.svg).toContain('&gt; 60 s');
    expect(h.svg).toContain('step 4 (generator-bound)');
    expect(latencyHistogramChart(loadRun('seed-002-s1.2-deliveries')).svg).toBeNull();
  });
});
