/**
 * `rtcap run --metrics-port 0` against the built-in server: the live metrics are served while
 * the run goes on and their counters grow between two scrapes of the steady phase; the port
 * is closed when the run ends. `rtcap campaign --metrics-port 0` serves one endpoint for the
 * whole campaign, its counters running on across the entries.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

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

const PROFILE = [
  'name: live',
  'scenario: broadcast-public',
  'target:',
  '  server: { database: false }',
  'generator: { max_event_loop_lag_p99_ms: 2000, max_cpu_pct: 100 }',
  'load:',
  '  join_rate: 100',
  '  drain: 2s',
  '  steps:',
  '    - { connections: 20, send_rate: 10, duration: 5s }',
  '',
].join('\n');

/** Starts `rtcap ARGS` and waits (bounded: 30 s) for its live metrics URL. */
async function startWithMetrics(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args, '--metrics-port', '0', '--no-progress'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let url: string | undefined;
  for (let i = 0; i < 300 && !url; i++) {
    url = /live metrics: (http:\/\/\S+)/.exec(stderr)?.[1];
    if (!url) await sleep(100);
  }
  return {
    child,
    exited,
    url,
    stderr: () => stderr,
    scrape: async () => samples(await (await fetch(url!)).text()),
  };
}

describe('rtcap run --metrics-port', () => {
  it('serves counters that grow while the run goes on', async () => {
    const dir = tempDir('rtcap-live-');
    const profile = join(dir, 'profile.yaml');
    writeFileSync(profile, PROFILE);
    const { child, exited, url, stderr, scrape } = await startWithMetrics([
      'run',
      profile,
      '--out',
      join(dir, 'out'),
    ]);
    try {
      expect(url, stderr()).toBeDefined();
      // Wait for the steady phase (bounded: 40 s), then scrape twice, two seconds apart.
      let first = await scrape();
      for (let i = 0; i < 200 && first.get('rtcap_phase{phase="steady"}') !== 1; i++) {
        await sleep(200);
        first = await scrape();
      }
      expect(first.get('rtcap_phase{phase="steady"}'), stderr()).toBe(1);
      await sleep(2500);
      const second = await scrape();
      expect(second.get('rtcap_connections{state="joined"}')).toBe(20);
      expect(second.get('rtcap_joins_total')).toBe(20);
      expect(second.get('rtcap_step')).toBe(1);
      expect(second.get('rtcap_sends_total')!).toBeGreaterThan(first.get('rtcap_sends_total')!);
      expect(second.get('rtcap_deliveries_total')!).toBeGreaterThan(
        first.get('rtcap_deliveries_total')!,
      );
      expect(second.get('rtcap_delivery_latency_seconds_count')!).toBeGreaterThan(
        first.get('rtcap_delivery_latency_seconds_count')!,
      );
      expect(await exited).toBe(0);
      await expect(fetch(url!)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);

  it('serves one endpoint for a whole campaign, counting on across its entries', async () => {
    const dir = tempDir('rtcap-live-');
    writeFileSync(join(dir, 'profile.yaml'), PROFILE);
    writeFileSync(
      join(dir, 'campaign.yaml'),
      [
        'name: live',
        'entries:',
        '  - { profile: profile.yaml, name: first }',
        '  - { profile: profile.yaml, name: second }',
        '',
      ].join('\n'),
    );
    const { child, exited, url, stderr, scrape } = await startWithMetrics([
      'campaign',
      join(dir, 'campaign.yaml'),
      '--out',
      join(dir, 'out'),
    ]);
    try {
      expect(url, stderr()).toBeDefined();
      // The second entry's 20 joins come on top of the first entry's 20 (bounded: 90 s).
      let joins = 0;
      for (let i = 0; i < 450 && joins < 40; i++) {
        joins = (await scrape()).get('rtcap_joins_total') ?? 0;
        if (joins < 40) await sleep(200);
      }
      expect(joins, stderr()).toBe(40);
      expect(await exited, stderr()).toBe(0);
      await expect(fetch(url!)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
    }
  }, 150_000);
});
