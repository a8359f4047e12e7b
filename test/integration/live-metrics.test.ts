/**
 * `rtcap run --metrics-port 0` against the built-in server: the live metrics are served while
 * the run goes on and their counters grow between two scrapes of the steady phase; the port
 * is closed when the run ends.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');

function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('rtcap run --metrics-port', () => {
  it('serves counters that grow while the run goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rtcap-live-'));
    const profile = join(dir, 'profile.yaml');
    writeFileSync(
      profile,
      ['name: live', 'scenario: broadcast-public', 'target:', '  server: { database: false }', 'generator: { max_event_loop_lag_p99_ms: 2000, max_cpu_pct: 100 }', 'load:', '  join_rate: 100', '  drain: 2s', '  steps:', '    - { connections: 20, send_rate: 10, duration: 5s }', ''].join('\n'),
    );
    const child = spawn(process.execPath, [BIN, 'run', profile, '--out', join(dir, 'out'), '--metrics-port', '0', '--no-progress'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      let url: string | undefined;
      for (let i = 0; i < 300 && !url; i++) {
        url = /live metrics: (http:\/\/\S+)/.exec(stderr)?.[1];
        if (!url) await sleep(100);
      }
      expect(url, stderr).toBeDefined();
      const scrape = async () => samples(await (await fetch(url!)).text());
      // Wait for the steady phase (bounded: 40 s), then scrape twice, two seconds apart.
      let first = await scrape();
      for (let i = 0; i < 200 && first.get('rtcap_phase{phase="steady"}') !== 1; i++) {
        await sleep(200);
        first = await scrape();
      }
      expect(first.get('rtcap_phase{phase="steady"}'), stderr).toBe(1);
      await sleep(2500);
      const second = await scrape();
      expect(second.get('rtcap_connections{state="joined"}')).toBe(20);
      expect(second.get('rtcap_joins_total')).toBe(20);
      expect(second.get('rtcap_step')).toBe(1);
      expect(second.get('rtcap_sends_total')!).toBeGreaterThan(first.get('rtcap_sends_total')!);
      expect(second.get('rtcap_deliveries_total')!).toBeGreaterThan(first.get('rtcap_deliveries_total')!);
      expect(second.get('rtcap_delivery_latency_seconds_count')!).toBeGreaterThan(first.get('rtcap_delivery_latency_seconds_count')!);
      expect(await exited).toBe(0);
      await expect(fetch(url!)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});
