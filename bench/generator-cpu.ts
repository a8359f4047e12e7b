/**
 * CPU seconds one whole generator run costs, beside a bare `ws` receiver
 * doing the same work in the same session: 1,000 connections on one topic of a relay server
 * (bench/support/blaster.ts on CPU 1), one sender at `--rate` messages/s for `--duration` s,
 * receivers on CPU 0. CPU is user + system of the whole process tree as `/usr/bin/time`
 * reports it (rtcap's coordinator and its generator processes; the bare receiver is one
 * process), from start to exit: start-up, joins, the send window, drain and reports.
 *
 * Each tool runs `--repeats` times, the tools alternating (and the order flipping every
 * repeat), so a drift of the shared machine's load falls on both alike. `--baseline DIR,…`
 * adds other rtcap builds (directories with bin/rtcap.js and dist/, e.g. copies made before a
 * change, named by their directory), so a before/after is measured in the same session too.
 *
 * With `--rates 0,R` each tool also runs with no traffic, and the marginal CPU of a delivery
 * is (CPU at R − CPU at 0) ÷ deliveries offered: the receive path without the fixed cost,
 * the figure that decides how many deliveries/s a receiver bound by its core can take.
 *
 * Run: npx tsx bench/generator-cpu.ts [--rate 60 | --rates 0,20] [--duration 8] [--connections
 * 1000] [--repeats 3] [--baseline DIR,DIR2]
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { option, startBlaster } from './support/cli.js';
import { tempDir } from '../test/support/temp-dir.js';

const connections = Number(option('connections', '1000'));
const rates = (option('rates', null) ?? option('rate', '60')!).split(',').map(Number);
const durationS = Number(option('duration', '8'));
const repeats = Number(option('repeats', '3'));
const baselines = (option('baseline', null) ?? '').split(',').filter(Boolean);
const root = resolve(import.meta.dirname, '..');
const tsx = ['--import', 'tsx'];

/** Runs argv under /usr/bin/time on CPU 0; resolves with stdout and the tree's CPU seconds. */
function timed(argv: string[], cwd: string): Promise<{ out: string; cpuS: number; wallS: number }> {
  return new Promise((res, rej) => {
    const child = spawn('/usr/bin/time', ['-f', 'CPU %U %S %e', 'taskset', '-c', '0', ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', () => {
      const m = /CPU ([\d.]+) ([\d.]+) ([\d.]+)\s*$/.exec(err);
      if (!m) return rej(new Error(`${argv.join(' ')}: no time line: ${err.slice(-400)}`));
      res({ out, cpuS: Number(m[1]) + Number(m[2]), wallS: Number(m[3]) });
    });
  });
}

interface Row {
  rate: number;
  tool: string;
  cpuS: number;
  wallS: number;
  delivery: number;
}

async function bare(url: string, rate: number): Promise<Row> {
  const r = await timed(
    [
      process.execPath,
      ...tsx,
      'bench/support/bare-receiver.ts',
      url,
      String(connections),
      String(rate),
      String(durationS),
    ],
    root,
  );
  const j = JSON.parse(r.out) as { delivery: number };
  return { rate, tool: 'bare ws', cpuS: r.cpuS, wallS: r.wallS, delivery: j.delivery };
}

async function rtcap(tool: string, dir: string, url: string, rate: number): Promise<Row> {
  const tmp = tempDir('rtcap-cpu-');
  const profile = join(tmp, 'profile.yaml');
  writeFileSync(
    profile,
    [
      'name: generator-cpu',
      'scenario: broadcast-public',
      `target: { url: "${url}", vsn: "1.0.0" }`,
      `load: { join_rate: 1000, workers: 1, drain: 10s, steps: [ { connections: ${connections}, send_rate: ${rate}, duration: ${durationS}s } ] }`,
      'slo: { p95_ms: 100 }',
      '',
    ].join('\n'),
  );
  const r = await timed(
    [
      process.execPath,
      join(dir, 'bin/rtcap.js'),
      'run',
      profile,
      '--out',
      join(tmp, 'out'),
      '--no-progress',
    ],
    dir,
  );
  const res = JSON.parse(readFileSync(join(tmp, 'out', 'result.json'), 'utf8')) as {
    steps: Array<{ delivery_rate: number | null }>;
  };
  rmSync(tmp, { recursive: true, force: true });
  return { rate, tool, cpuS: r.cpuS, wallS: r.wallS, delivery: res.steps[0]?.delivery_rate ?? 0 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const blaster = await startBlaster({ stderr: 'ignore' });
  const url = `ws://127.0.0.1:${blaster.port}/socket/websocket`;
  const tools: Array<(rate: number) => Promise<Row>> = [
    (r) => bare(url, r),
    (r) => rtcap('rtcap', root, url, r),
  ];
  for (const b of baselines)
    tools.push((r) => rtcap(`rtcap build ${basename(resolve(b))}`, resolve(b), url, r));
  const rows: Row[] = [];
  const loads: number[] = [];
  try {
    for (let r = 0; r < repeats; r++) {
      for (const rate of rates)
        for (const t of r % 2 === 0 ? tools : [...tools].reverse()) {
          loads.push(loadavg()[0]);
          const row = await t(rate);
          rows.push(row);
          process.stderr.write(
            `repeat ${r + 1} ${rate} msg/s ${row.tool}: ${row.cpuS.toFixed(2)} CPU s, ${row.wallS.toFixed(1)} s wall, delivery ${(row.delivery * 100).toFixed(3)} % (load ${loadavg()[0].toFixed(1)})\n`,
          );
        }
    }
  } finally {
    blaster.stop();
  }
  const names = [...new Set(rows.map((r) => r.tool))];
  const of = (n: string, rate: number) => rows.filter((r) => r.tool === n && r.rate === rate);
  const lines: string[] = [
    `| messages/s | tool | CPU s per run (each repeat) | median | ÷ bare ws median | wall s (median) | lowest delivery |`,
    `|---|---|---|---|---|---|---|`,
  ];
  for (const rate of rates) {
    const bareMed = median(of('bare ws', rate).map((r) => r.cpuS));
    for (const n of names) {
      const rs = of(n, rate);
      const med = median(rs.map((r) => r.cpuS));
      lines.push(
        `| ${rate} | ${n} | ${rs.map((r) => r.cpuS.toFixed(2)).join(' / ')} | ${med.toFixed(2)} | ${(med / bareMed).toFixed(2)} | ${median(rs.map((r) => r.wallS)).toFixed(1)} | ${rate === 0 ? '—' : `${(Math.min(...rs.map((r) => r.delivery)) * 100).toFixed(3)} %`} |`,
      );
    }
  }
  const top = Math.max(...rates);
  if (rates.includes(0) && top > 0) {
    const deliveries = top * (connections - 1) * durationS;
    const us = (n: string) =>
      ((median(of(n, top).map((r) => r.cpuS)) - median(of(n, 0).map((r) => r.cpuS))) / deliveries) *
      1e6;
    lines.push(
      '',
      `| tool | marginal CPU per delivery at ${top} msg/s (µs) | ÷ bare ws |`,
      `|---|---|---|`,
    );
    for (const n of names)
      lines.push(`| ${n} | ${us(n).toFixed(2)} | ${(us(n) / us('bare ws')).toFixed(2)} |`);
    // The same per repeat (each tool's runs of one repeat are minutes apart): the ratio's spread.
    const perRepeat = (n: string) => {
      const hi = of(n, top);
      const lo = of(n, 0);
      return hi.map((r, i) => ((r.cpuS - lo[i].cpuS) / deliveries) * 1e6);
    };
    const bareUs = perRepeat('bare ws');
    for (const n of names.filter((x) => x !== 'bare ws')) {
      const ratios = perRepeat(n).map((u, i) => u / bareUs[i]);
      lines.push(
        '',
        `${n} ÷ bare ws, marginal CPU per delivery, per repeat: ${ratios.map((x) => x.toFixed(2)).join(' / ')} (median ${median(ratios).toFixed(2)}, range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}).`,
      );
    }
  }
  lines.push(
    '',
    `${connections} connections, ${rates.join(' and ')} messages/s for ${durationS} s (${(top * (connections - 1)).toLocaleString('en-US')} deliveries/s at ${top}), ${repeats} repeats; load average (1 min) ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${cpus().length} CPUs.`,
  );
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exit(1);
});
