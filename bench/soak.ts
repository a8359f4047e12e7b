/**
 * Long runs stay flat: one rtcap run of a single long step at a steady
 * delivery rate (default 10 minutes, 1,000 connections on one topic, 10,000 deliveries/s, 2
 * generator processes) against the fan-out blaster (bench/support/blaster.ts, CPU 1). Every
 * rtcap process (coordinator and generator processes) carries bench/support/mem-probe.mjs,
 * which writes its memory every 5 s. The bench reports, per process, RSS and V8 heap used in
 * minute 1 and in the last minute of the steady sends:
 *   RSS: the median of the minute's readings;
 *   heap used: the minimum of the minute's readings — the floor after the collector has run,
 *   which is what rises when something is retained (a single reading is mostly garbage).
 * Growth = last minute − minute 1. The run's own figures (delivery, verdict) are printed too,
 * so a flat memory line that came from a broken run cannot pass for one.
 *
 * Run: npx tsx bench/soak.ts [--minutes 10] [--connections 1000] [--deliveries 10000] [--workers 2]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { option, startBlaster } from './support/cli.js';
import { tempDir } from '../test/support/temp-dir.js';

const minutes = Number(option('minutes', '10'));
const connections = Number(option('connections', '1000'));
const deliveries = Number(option('deliveries', '10000'));
const workers = Number(option('workers', '2'));
const root = resolve(import.meta.dirname, '..');

interface Probe {
  pid: number;
  ppid: number;
  argv1: string;
  t: number;
  rss: number;
  heap_used: number;
}

const mb = (b: number) => b / 1048576;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const loadStart = loadavg()[0];
  const blaster = await startBlaster({ stderr: 'ignore' });
  const port = blaster.port;
  const url = `ws://127.0.0.1:${port}/socket/websocket`;
  const dir = tempDir('rtcap-soak-');
  const probeDir = join(dir, 'mem');
  mkdirSync(probeDir);
  const rate = deliveries / (connections - 1);
  const profile = join(dir, 'profile.yaml');
  writeFileSync(
    profile,
    [
      'name: soak',
      'scenario: broadcast-public',
      `target: { url: "${url}", vsn: "1.0.0" }`,
      `load: { join_rate: 1000, workers: ${workers}, drain: 10s, steps: [ { connections: ${connections}, send_rate: ${rate.toFixed(4)}, duration: ${minutes * 60}s } ] }`,
      '',
    ].join('\n'),
  );
  process.stderr.write(
    `soak: ${minutes} min, ${connections} connections, ${rate.toFixed(2)} msg/s → ${deliveries} deliveries/s; run dir ${dir}\n`,
  );
  const startMs = Date.now();
  const code = await new Promise<number | null>((res) => {
    const p = spawn(
      process.execPath,
      ['bin/rtcap.js', 'run', profile, '--out', join(dir, 'out'), '--no-progress'],
      {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          NODE_OPTIONS:
            `${process.env.NODE_OPTIONS ?? ''} --import ${join(root, 'bench/support/mem-probe.mjs')}`.trim(),
          RTCAP_MEM_PROBE_DIR: probeDir,
          RTCAP_MEM_PROBE_MS: '5000',
        },
      },
    );
    p.on('exit', (c) => res(c));
  });
  blaster.stop();
  const loadEnd = loadavg()[0];
  const r = JSON.parse(readFileSync(join(dir, 'out', 'result.json'), 'utf8')) as {
    steps: Array<{
      verdict: string;
      delivery_rate: number | null;
      rates: { delivered_per_s: number | null };
      connections: { joined: number };
      window?: unknown;
    }>;
  };
  const s = r.steps[0];
  // Sends start after the ramp (1 s at 1,000 joins/s) and run `minutes`; minute 1 and the last
  // minute of them.
  const byPid = new Map<number, Probe[]>();
  for (const f of readdirSync(probeDir)) {
    const lines = readFileSync(join(probeDir, f), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Probe);
    byPid.set(lines[0].pid, lines);
  }
  const coordinatorPid = [...byPid.values()].find((ls) => ls[0].argv1.endsWith('rtcap.js'))?.[0]
    .pid;
  const t0 = Math.min(...[...byPid.values()].map((ls) => ls[0].t));
  const sendStart = t0 + 5_000; // start-up and the 1 s ramp; minute 1 starts here
  const sendEnd = sendStart + minutes * 60_000;
  const rows: string[] = [];
  for (const [pid, ls] of [...byPid.entries()].sort(([a], [b]) =>
    a === coordinatorPid ? -1 : b === coordinatorPid ? 1 : a - b,
  )) {
    const inWin = (a: number, b: number) => ls.filter((x) => x.t >= a && x.t < b);
    const first = inWin(sendStart, sendStart + 60_000);
    const last = inWin(sendEnd - 60_000, sendEnd);
    if (!first.length || !last.length) continue;
    const rss1 = mb(median(first.map((x) => x.rss)));
    const rssN = mb(median(last.map((x) => x.rss)));
    const heap1 = mb(Math.min(...first.map((x) => x.heap_used)));
    const heapN = mb(Math.min(...last.map((x) => x.heap_used)));
    const who = pid === coordinatorPid ? 'coordinator' : `generator process (pid ${pid})`;
    rows.push(
      `| ${who} | ${rss1.toFixed(1)} | ${rssN.toFixed(1)} | ${rssN - rss1 >= 0 ? '+' : ''}${(rssN - rss1).toFixed(1)} | ${heap1.toFixed(1)} | ${heapN.toFixed(1)} | ${heapN - heap1 >= 0 ? '+' : ''}${(heapN - heap1).toFixed(1)} |`,
    );
  }
  process.stdout.write(
    [
      `soak: ${minutes} min steady, ${connections.toLocaleString('en-US')} connections, ${deliveries.toLocaleString('en-US')} deliveries/s offered, ${workers} generator processes; rtcap exit ${code}; wall ${((Date.now() - startMs) / 1000).toFixed(0)} s; load average ${loadStart.toFixed(2)} at start, ${loadEnd.toFixed(2)} at end`,
      `run: joined ${s.connections.joined}, delivery ${s.delivery_rate === null ? '—' : (s.delivery_rate * 100).toFixed(3) + ' %'}, ${s.rates.delivered_per_s ?? '—'} deliveries/s, verdict ${s.verdict}`,
      '',
      `| process | RSS minute 1 (MB, median) | RSS minute ${minutes} (MB, median) | RSS growth | heap used minute 1 (MB, floor) | heap used minute ${minutes} (MB, floor) | heap growth |`,
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `probe files: ${probeDir}`,
    ].join('\n') + '\n',
  );
}

main().catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exit(1);
});
