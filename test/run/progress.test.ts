import { describe, expect, it } from 'vitest';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import { Progress } from '../../src/run/progress.js';

function capture(): { stream: NodeJS.WriteStream; text: () => string } {
  let out = '';
  const stream = {
    isTTY: false,
    columns: 0,
    write: (s: string) => ((out += s), true),
  } as unknown as NodeJS.WriteStream;
  return { stream, text: () => out };
}

describe('Progress', () => {
  it('numbers a search step without a total (a search decides its steps as it goes)', () => {
    const { stream, text } = capture();
    new Progress(stream, true).update(
      { ...point(), step: 3 },
      {
        steps: 0,
        target: 10,
        elapsedInPhaseS: 1,
        phaseLengthS: 5,
      },
    );
    expect(text()).toMatch(/^step 3 steady 1\/5s ·/);
    const fixed = capture();
    new Progress(fixed.stream, true).update(
      { ...point(), step: 3 },
      {
        steps: 4,
        target: 10,
        elapsedInPhaseS: 1,
        phaseLengthS: 5,
      },
    );
    expect(fixed.text()).toMatch(/^step 3\/4 steady/);
  });

  it('names its latency: every receipt, not the first receipt the final table shows', () => {
    const { stream, text } = capture();
    const p = point();
    new Progress(stream, true).update(p, {
      steps: 1,
      target: 10,
      elapsedInPhaseS: 1,
      phaseLengthS: 5,
    });
    expect(text()).toContain('every-receipt p95 42 ms');
    expect(text()).not.toMatch(/· p95/);
  });

  it("names the limit a second met right after the step, in the capacity row's words, and prints it at once", () => {
    const { stream, text } = capture();
    const progress = new Progress(stream, true);
    const ctx = { steps: 2, target: 600, elapsedInPhaseS: 1, phaseLengthS: null };
    // The server at its open-file limit, but nothing failed this second: no limit named yet.
    progress.update({ ...point(), server_open_files: { open: 400, limit: 400 } }, ctx);
    expect(text()).not.toContain('limit');
    // Within the 5 s between plain lines: the second whose connections fail there prints at once.
    progress.update({ ...point(), errors: 3, server_open_files: { open: 396, limit: 400 } }, ctx);
    const lines = text().trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^step 1\/2 steady · environment limit: server process open-file limit 400 · joined 10\/600 ·/,
    );
    // Far from the limit: not named, and the next line waits its 5 s again.
    progress.update({ ...point(), errors: 3, server_open_files: { open: 200, limit: 400 } }, ctx);
    expect(text().trim().split('\n')).toHaveLength(2);
  });
});

function point(): TimeseriesPoint {
  return {
    t: 0,
    step: 1,
    phase: 'steady',
    connections_open: 10,
    joined: 10,
    joins_per_s: 0,
    sent_per_s: 1,
    delivered_per_s: 10,
    sent_per_s_60s: 1,
    delivered_per_s_60s: 10,
    delivery_p50_ms: 3,
    delivery_p95_ms: 42,
    delivery_p99_ms: 50,
    errors: 0,
    disconnects: 0,
    server_cpu_pct: 5,
    server_rss_mb: 100,
    generator_cpu_pct: 10,
    generator_lag_p99_ms: 2,
  } as TimeseriesPoint;
}
