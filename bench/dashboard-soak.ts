/**
 * The live dashboard over a long run: does the page stay responsive, and do rtcap's memory
 * and the page's stay bounded? A low-rate run against the built-in server (one step, a few
 * dozen connections, a few messages a second, for --minutes) with `--dashboard` and the page
 * open in headless Chromium the whole time. Every --every seconds it samples:
 *
 *  - rtcap's coordinator RSS (/proc/PID/status VmRSS: the process that holds the dashboard);
 *  - the page's JS heap after a forced garbage collection (CDP HeapProfiler.collectGarbage,
 *    then Runtime.getHeapUsage: what the page retains), and its DOM node count;
 *  - responsiveness: the round trip of a page.evaluate, and how old the newest second drawn
 *    on the page is (now − its t; a page that stopped following shows a growing age);
 *  - the size of the catch-up snapshot a reloaded page would get (api/state).
 *
 *   nice -n 10 npx tsx bench/dashboard-soak.ts --minutes 65 --out /tmp/dashboard-soak.ndjson
 *
 * Prints one line per sample and a summary at the end (first, last, max of each series).
 * The dashboard keeps the last 3,600 seconds: a run longer than an hour shows whether the
 * buffers stop growing once full.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchChromium } from './support/browser.js';
import { tempDir } from '../test/support/temp-dir.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const minutes = Number(opt('minutes', '65'));
const everyS = Number(opt('every', '60'));
const connections = Number(opt('connections', '50'));
const sendRate = Number(opt('send-rate', '2'));
const out = resolve(opt('out', join(tmpdir(), 'dashboard-soak.ndjson')));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 102.4) / 10 : null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const dir = tempDir('rtcap-dash-soak-');
  const profile = join(dir, 'soak.yaml');
  const steadyS = Math.round(minutes * 60);
  writeFileSync(
    profile,
    [
      'name: dashboard-soak',
      'scenario: broadcast-public',
      'target:',
      '  server: { database: false }',
      'load:',
      `  join_rate: ${Math.max(10, connections)}`,
      '  drain: 2s',
      '  steps:',
      `    - { connections: ${connections}, send_rate: ${sendRate}, duration: ${steadyS}s }`,
      '',
    ].join('\n'),
  );
  writeFileSync(out, '');
  const bin = resolve(import.meta.dirname, '../bin/rtcap.js');
  const child = spawn(
    process.execPath,
    [bin, 'run', profile, '--out', join(dir, 'out'), '--no-progress', '--dashboard'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  let url: string | undefined;
  for (let i = 0; i < 600 && !url; i++) {
    url = /dashboard: (http:\/\/\S+)/.exec(stderr)?.[1];
    if (!url) await sleep(100);
  }
  if (!url) throw new Error(`no dashboard address printed:\n${stderr}`);
  const browser = await launchChromium();
  const samples: Array<Record<string, number | null>> = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.route('**/*', (r) =>
      new URL(r.request().url()).hostname === '127.0.0.1' ? r.continue() : r.abort(),
    );
    await page.goto(url);
    const cdp = await page.context().newCDPSession(page);
    const t0 = Date.now();
    let running = true;
    void exited.then(() => (running = false));
    while (running && Date.now() - t0 < (steadyS + 120) * 1000) {
      await sleep(everyS * 1000);
      if (!running) break;
      const e0 = performance.now();
      const seen = (await page.evaluate(
        '({ t: (window.rtcapState.seconds.slice(-1)[0] || {}).t || null, n: window.rtcapState.seconds.length, nodes: document.getElementsByTagName("*").length })',
      )) as { t: number | null; n: number; nodes: number };
      const evalMs = performance.now() - e0;
      await cdp.send('HeapProfiler.collectGarbage');
      const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
      const state = await fetch(`${url}api/state`).then(
        (r) => r.text(),
        () => null,
      );
      if (state === null) break; // the run ended between two checks
      const s = {
        elapsed_s: Math.round((Date.now() - t0) / 1000),
        rtcap_rss_mb: rssMb(child.pid!),
        page_heap_mb: Math.round(heap.usedSize / 104857.6) / 10,
        page_dom_nodes: seen.nodes,
        page_seconds_held: seen.n,
        newest_second_age_s:
          seen.t === null ? null : Math.round((Date.now() / 1000 - seen.t) * 10) / 10,
        evaluate_ms: Math.round(evalMs * 10) / 10,
        snapshot_kb: Math.round(state.length / 1024),
      };
      samples.push(s);
      appendFileSync(out, JSON.stringify(s) + '\n');
      process.stdout.write(JSON.stringify(s) + '\n');
    }
  } finally {
    await browser.close();
    child.kill('SIGINT');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
  const keys = Object.keys(samples[0] ?? {}).filter((k) => k !== 'elapsed_s');
  const summary: Record<string, unknown> = {
    minutes,
    connections,
    send_rate: sendRate,
    samples: samples.length,
  };
  for (const k of keys) {
    const xs = samples.map((s) => s[k]).filter((v): v is number => typeof v === 'number');
    summary[k] = { first: xs[0], last: xs[xs.length - 1], max: Math.max(...xs) };
  }
  process.stdout.write(`summary ${JSON.stringify(summary)}\n`);
}

await main();
