import { describe, expect, it } from 'vitest';
import { timelineChart } from '../../../src/report/charts/timeline.js';
import { loadTimeseries } from '../../fixtures/index.js';

describe('timelineChart', () => {
  it('rendering is pure: the same input gives the same SVG', () => {
    const ts = loadTimeseries('run-a.timeseries');
    const svg = timelineChart(ts).svg!;
    expect(svg).toBe(timelineChart(ts).svg);
    expect(svg).toContain('s from start');
    expect(svg).toContain('sent/s (right axis)');
  });

  it('no points: no chart, and the reason', () => {
    expect(timelineChart([])).toMatchObject({ svg: null, caption: 'No timeseries.ndjson points.' });
  });
});
