import { describe, expect, it } from 'vitest';
import {
  GaugeProbe,
  gaugeMax,
  metricsUrlOf,
  POLLER_GAUGES,
  type GaugeSample,
} from '../../src/monitor/gauges.js';

describe('server gauges', () => {
  it('the /metrics URL of a socket URL', () => {
    expect(metricsUrlOf('ws://127.0.0.1:4000/socket/websocket?vsn=1.0.0')).toBe(
      'http://127.0.0.1:4000/metrics',
    );
    expect(metricsUrlOf('wss://example.com/realtime/v1/websocket')).toBe(
      'https://example.com/metrics',
    );
  });

  it('reads the named gauges, summed over label sets, skipping NaN and other metrics', async () => {
    const text = [
      '# HELP realtime_replication_poller_last_poll_ms duration of the last poll',
      'realtime_replication_poller_last_poll_ms 12.5',
      'realtime_replication_poller_lag_ms NaN',
      'realtime_connections_connected 40',
    ].join('\n');
    let asked: Record<string, string> | null = null;
    const probe = new GaugeProbe('http://x/metrics', 'tok', POLLER_GAUGES, async (_u, h) => {
      asked = h;
      return text;
    });
    const s = await probe.sample();
    expect(s!.values).toEqual({ realtime_replication_poller_last_poll_ms: 12.5 });
    expect(asked).toEqual({ authorization: 'Bearer tok' });
  });

  it('an endpoint that does not answer gives no sample', async () => {
    const probe = new GaugeProbe('http://x/metrics', undefined, POLLER_GAUGES, async () => {
      throw new Error('refused');
    });
    expect(await probe.sample()).toBeNull();
  });

  it('the largest value within a window, null without one', () => {
    const samples: GaugeSample[] = [
      { t: 1000, values: { a: 5 } },
      { t: 2000, values: { a: 9 } },
      { t: 3000, values: {} },
      { t: 4000, values: { a: 30 } },
    ];
    expect(gaugeMax(samples, 'a', 1500, 3500)).toBe(9);
    expect(gaugeMax(samples, 'a', 2500, 3500)).toBeNull();
    expect(gaugeMax(samples, 'b', 0, 5000)).toBeNull();
  });
});
