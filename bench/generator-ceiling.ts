/**
 * The generator's ceiling (issue 2): deliveries/s one rtcap generator process consumes at
 * 100 % delivery with 1,000 connections on one topic, beside a bare `ws` receiver that only
 * counts messages and reads `t`, in the same run against the same server. The server (a
 * fan-out "blaster" that frames once, bench/support/blaster.ts) runs on CPU 1 and the
 * receivers on CPU 0, so neither steals the other's core.
 *
 * A receiver "keeps up" at a rate when delivery ≥ 99.99 % and the p99 latency of all receipts
 * stays under 100 ms (a receiver falling behind queues, and its latency grows without bound).
 *
 * Run: npx tsx bench/generator-ceiling.ts [--connections 1000] [--duration 10]
 *        [--deliveries 20000,40000,60000,80000,100000,120000]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ProcTreeSampler } from '../src/monitor/proc.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const connections = Number(opt('connections', '1000'));
const durationS = Number(opt('duration', '10'));
const ladder = opt('deliveries', '20000,40000,60000,80000,100000,120000').split(',').map(Number);
const root = resolve(import.meta.dirname, '..');
const tsx = ['--import', 'tsx'];

function startBlaster(): Promise<{ port: number; pid: number; stop: () => void }> {
  const child = spawn('taskset', ['-c', '1', process.execPath, ...tsx, join(root, 'bench/support/blaster.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((res, rej) => {
    createInterface({ input: child.stdout! }).once('line', (l) => res({ port: (JSON.parse(l) as { port: number }).port, pid: child.pid!, stop: () => child.kill('SIGTERM') }));
    child.once('exit', (c) => rej(new Error(`blaster exited ${c}`)));
  });
}

function run(cmd: string, argv: string[]): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? res(out) : rej(new Error(`${argv.join(' ')} exited ${code}: ${err.slice(-500)}`))));
  });
}

async function measureServerCpu<T>(pid: number, body: () => Promise<T>): Promise<{ value: T; serverCpuPct: number | null }> {
  const s = new ProcTreeSampler(pid);
  await s.sample();
  const samples: number[] = [];
  const timer = setInterval(() => void s.sample().then((x) => x.cpuCores !== null && samples.push(x.cpuCores * 100)), 1000);
  try {
    const value = await body();
    return { value, serverCpuPct: samples.length ? Math.max(...samples) : null };
  } finally {
    clearInterval(timer);
  }
}

interface Trial {
  tool: 'bare ws' | 'rtcap';
  deliveriesTarget: number;
  delivery: number;
  deliveredPerS: number;
  cpuPct: number | null;
  p99Ms: number | null;
  serverCpuPct: number | null;
  keepsUp: boolean;
}

async function main() {
  const blaster = await startBlaster();
  const url = `ws://127.0.0.1:${blaster.port}/socket/websocket`;
  const trials: Trial[] = [];
  try {
    for (const d of ladder) {
      const rate = d / (connections - 1);
      // Bare receiver.
      const bare = await measureServerCpu(blaster.pid, async () =>
        JSON.parse(await run('taskset', ['-c', '0', process.execPath, ...tsx, 'bench/support/bare-receiver.ts', url, String(connections), String(rate), String(durationS)])) as {
          delivery: number; delivered_per_s: number; cpu_pct: number; p99_ms: number | null;
        },
      );
      trials.push({
        tool: 'bare ws', deliveriesTarget: d, delivery: bare.value.delivery, deliveredPerS: bare.value.delivered_per_s, cpuPct: bare.value.cpu_pct,
        p99Ms: bare.value.p99_ms, serverCpuPct: bare.serverCpuPct, keepsUp: bare.value.delivery >= 0.9999 && (bare.value.p99_ms ?? Infinity) < 100,
      });
      // rtcap, exactly as a user runs it.
      const dir = mkdtempSync(join(tmpdir(), 'rtcap-ceiling-'));
      const profile = join(dir, 'profile.yaml');
      writeFileSync(profile, [
        'name: generator-ceiling', 'scenario: broadcast-public', `target: { url: "${url}", vsn: "1.0.0" }`,
        `load: { join_rate: 1000, workers: 1, drain: 10s, steps: [ { connections: ${connections}, send_rate: ${rate.toFixed(3)}, duration: ${durationS}s } ] }`,
        'slo: { p95_ms: 100 }', '',
      ].join('\n'));
      const rt = await measureServerCpu(blaster.pid, async () => {
        await run(process.execPath, ['bin/rtcap.js', 'run', profile, '--out', join(dir, 'out'), '--generator-cpus', '0', '--no-progress']).catch(() => '');
        return JSON.parse(readFileSync(join(dir, 'out', 'result.json'), 'utf8')) as { steps: Array<{ delivery_rate: number | null; rates: { delivered_per_s: number | null }; generator: { cpu_pct: number | null }; delivery_latency_ms: { p99: number | null }; verdict: string }> };
      });
      const s = rt.value.steps[0];
      trials.push({
        tool: 'rtcap', deliveriesTarget: d, delivery: s.delivery_rate ?? 0, deliveredPerS: s.rates.delivered_per_s ?? 0, cpuPct: s.generator.cpu_pct,
        p99Ms: s.delivery_latency_ms.p99, serverCpuPct: rt.serverCpuPct, keepsUp: (s.delivery_rate ?? 0) >= 0.9999 && (s.delivery_latency_ms.p99 ?? Infinity) < 100,
      });
      for (const t of trials.slice(-2)) process.stderr.write(`${t.tool.padEnd(8)} ${d}/s → delivery ${(t.delivery * 100).toFixed(3)} %, ${Math.round(t.deliveredPerS)}/s, CPU ${t.cpuPct?.toFixed(0)} %, p99 ${t.p99Ms?.toFixed(1)} ms, server CPU ${t.serverCpuPct?.toFixed(0)} % ${t.keepsUp ? 'keeps up' : 'FALLS BEHIND'}\n`);
    }
  } finally {
    blaster.stop();
  }
  const ceiling = (tool: Trial['tool']) => Math.max(0, ...trials.filter((t) => t.tool === tool && t.keepsUp).map((t) => t.deliveriesTarget));
  const bareC = ceiling('bare ws');
  const rtC = ceiling('rtcap');
  const fmt = (v: number | null, d = 0) => (v === null ? '—' : v.toFixed(d));
  const lines = [
    `| deliveries/s offered | tool | delivery | delivered/s | receiver CPU % of a core | p99 of all receipts | server CPU % | keeps up |`,
    `|---|---|---|---|---|---|---|---|`,
    ...trials.map((t) => `| ${t.deliveriesTarget.toLocaleString('en-US')} | ${t.tool} | ${(t.delivery * 100).toFixed(3)} % | ${Math.round(t.deliveredPerS).toLocaleString('en-US')} | ${fmt(t.cpuPct)} | ${fmt(t.p99Ms, 1)} ms | ${fmt(t.serverCpuPct)} | ${t.keepsUp ? 'yes' : 'no'} |`),
    '',
    `Ceiling (highest offered rate kept up): bare ws ${bareC.toLocaleString('en-US')}/s, rtcap ${rtC.toLocaleString('en-US')}/s → rtcap at ${bareC ? ((rtC / bareC) * 100).toFixed(0) : '—'} % of the bare receiver.`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exit(1);
});
