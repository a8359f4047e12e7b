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
    const server = createServer((s) => s.on('data', () => undefined));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client: Socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((r) => client.once('connect', r));
    const sampler = new HostSampler(true);
    try {
      await sampler.sample();
      const start = Date.now();
      const chunk = Buffer.alloc(1 << 20, 1);
      let sent = 0;
      while (Date.now() - start < 1200 && sent < 64 * chunk.length) {
        if (!client.write(chunk)) await new Promise((r) => client.once('drain', r));
        sent += chunk.length;
      }
      await new Promise((r) => setTimeout(r, 100));
      const s = await sampler.sample();
      const elapsedS = (s.t - start) / 1000 + 0.2;
      expect(s.interfaces).toEqual(['lo']);
      expect(s.netTxBytesPerS!).toBeGreaterThan((sent / elapsedS) * 0.8);
      // lo receives what it transmits; the two counters are read a moment apart.
      expect(Math.abs(s.netRxBytesPerS! - s.netTxBytesPerS!) / s.netTxBytesPerS!).toBeLessThan(0.05);
      expect(s.cpuPct!).toBeGreaterThanOrEqual(0);
    } finally {
      client.destroy();
      server.close();
    }
  });
});
