import { describe, expect, it } from 'vitest';
import { renderSvg } from '../../../src/report/charts/render.js';

const option = {
  xAxis: { type: 'category' as const, data: ['a', 'b'] },
  yAxis: { type: 'value' as const },
  series: [{ type: 'bar' as const, data: [1, 2] }],
};

describe('renderSvg', () => {
  it("ids and classes come from the chart id, not zrender's process-wide counters", () => {
    const first = renderSvg('my chart', option);
    expect(renderSvg('my chart', option)).toBe(first);
    expect(first).not.toMatch(/\bzr\d+-/);
    expect(first).toMatch(/rc-my_chart-/);
    expect(first.startsWith('<svg')).toBe(true);
  });
});
