/**
 * The generator host through systeminformation: its description agrees with node:os, and the
 * loopback interface's throughput is at least what the test itself pushed through it (other
 * processes on this shared machine only add to it).
 */
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { describeHost, HostSampler } from '../../src/monitor/host.js';

describe('describeHost', () => {
  it('reports the cores and memory node:os sees, and the load average', async () => {
    const h = await describeHost();
    expect(h.cores).toBe(os.cpus().length);
    expect(Math.abs(h.memory_mb - os.totalmem() / 1048576)).toBeLessThan(2);
    expect(h.load_avg_1m).toBeGreaterThanOrEqual(0);
    expect(h.node).toBe(process.version);
  });
});

describe('HostSampler', () => {
  it('counts on lo at least the bytes pushed through a loopback socket, tx equal to rx', async () => {
    let received = 0;
    const server = createServer((sock) => sock.on('data', (d: Buffer) => (received += d.length)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client: Socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((r) => client.once('connect', r));
    const sampler = new HostSampler(true);
    try {
      const first = await sampler.sample();
      const start = Date.now();
      const chunk = Buffer.alloc(1 << 20, 1);
      let sent = 0;
      while (Date.now() - start < 1000 && sent < 48 * chunk.length) {
        if (!client.write(chunk)) await new Promise((r) => client.once('drain', r));
        sent += chunk.length;
      }
      // Every byte has crossed lo once the server has read it (bounded wait).
      for (let i = 0; i < 100 && received < sent; i++) await new Promise((r) => setTimeout(r, 20));
      expect(received).toBe(sent);
      // A second apart, as the runner samples: systeminformation answers a call within 500 ms of
      // the previous one from its cache.
      await new Promise((r) => setTimeout(r, Math.max(0, first.t + 1100 - Date.now())));
      const s = await sampler.sample();
      const intervalS = (s.t - first.t) / 1000;
      expect(s.interfaces).toEqual(['lo']);
      expect(s.netTxBytesPerS! * intervalS).toBeGreaterThan(sent * 0.9);
      // lo receives what it transmits; the two counters are read a moment apart.
      expect(Math.abs(s.netRxBytesPerS! - s.netTxBytesPerS!) / s.netTxBytesPerS!).toBeLessThan(
        0.05,
      );
      expect(s.cpuPct!).toBeGreaterThanOrEqual(0);
    } finally {
      client.destroy();
      server.close();
    }
  });
});
