/**
 * The fixed cost of a run: CPU seconds (user + sys) of rtcap's whole process
 * tree — coordinator and generator processes, not the server — for a no-traffic run that only
 * opens and joins N connections and holds them for one step, beside a bare `ws` client
 * (bench/support/bare-idle.mjs) that opens and joins the same N connections and holds them as
 * long, in the same run against the same server.
 *
 * How CPU is counted: each is started under GNU time, whose figures come from wait4() on the
 * process it started; Linux adds to a process's usage that of every descendant it has waited
 * for, so rtcap's generator processes are included once the coordinator has reaped them (it
 * waits for their exit in WorkerPool.stop). The server is the fan-out blaster
 * (bench/support/blaster.ts), a separate process tree on CPU 1; both clients run on CPU 0.
 * Trials alternate bare / rtcap; the figure is the median of each, and the ratio is of the
 * medians of this run.
 *
 * Run: npx tsx bench/fixed-cost.ts [--connections 1000] [--duration 8] [--trials 3] [--workers 1]
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { option, startBlaster } from './support/cli.js';
import { tempDir } from '../test/support/temp-dir.js';

const connections = Number(option('connections', '1000'));
const durationS = Number(option('duration', '8'));
const trials = Number(option('trials', '3'));
const workers = Number(option('workers', '1'));
const root = resolve(import.meta.dirname, '..');

interface Cost {
  cpuS: number;
  userS: number;
  sysS: number;
  wallS: number;
  maxRssMb: number;
}

/** Runs argv on CPU 0 under GNU time; the cost of its whole (reaped) process tree. */
function timed(argv: string[], dir: string): Promise<Cost> {
  const out = join(dir, 'time.txt');
  return new Promise((res, rej) => {
    const child = spawn(
      '/usr/bin/time',
      ['-o', out, '-f', '%U %S %e %M', 'taskset', '-c', '0', ...argv],
      { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      if (code !== 0) return rej(new Error(`${argv.join(' ')} exited ${code}: ${err.slice(-500)}`));
      const [u, s, e, m] = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .pop()!
        .split(' ')
        .map(Number);
      res({ cpuS: u + s, userS: u, sysS: s, wallS: e, maxRssMb: m / 1024 });
    });
  });
}

async function rtcapTrial(url: string): Promise<Cost & { joined: number }> {
  const dir = tempDir('rtcap-fixed-');
  try {
    const profile = join(dir, 'profile.yaml');
    writeFileSync(
      profile,
      [
        'name: fixed-cost',
        'scenario: broadcast-public',
        `target: { url: "${url}", vsn: "1.0.0" }`,
        `load: { join_rate: 1000, workers: ${workers}, steps: [ { connections: ${connections}, send_rate: 0, duration: ${durationS}s } ] }`,
        '',
      ].join('\n'),
    );
    const cost = await timed(
      [
        process.execPath,
        'bin/rtcap.js',
        'run',
        profile,
        '--out',
        join(dir, 'out'),
        '--no-progress',
      ],
      dir,
    );
    const r = JSON.parse(readFileSync(join(dir, 'out', 'result.json'), 'utf8')) as {
      steps: Array<{ connections: { joined: number } }>;
    };
    return { ...cost, joined: r.steps[0]?.connections.joined ?? 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function bareTrial(url: string): Promise<Cost & { joined: number }> {
  const dir = tempDir('rtcap-fixed-');
  try {
    let joined = 0;
    const cost = await timed(
      [
        'sh',
        '-c',
        `"${process.execPath}" bench/support/bare-idle.mjs "${url}" ${connections} ${durationS} > "${join(dir, 'out.json')}"`,
      ],
      dir,
    );
    joined = (JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')) as { joined: number }).joined;
    return { ...cost, joined };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const load = loadavg()[0];
  const blaster = await startBlaster();
  const url = `ws://127.0.0.1:${blaster.port}/socket/websocket`;
  const bare: Array<Cost & { joined: number }> = [];
  const rt: Array<Cost & { joined: number }> = [];
  try {
    for (let t = 0; t < trials; t++) {
      bare.push(await bareTrial(url));
      rt.push(await rtcapTrial(url));
      for (const [tool, c] of [
        ['bare ws', bare.at(-1)!],
        ['rtcap', rt.at(-1)!],
      ] as const) {
        process.stderr.write(
          `trial ${t + 1} ${tool.padEnd(7)} joined ${c.joined}: CPU ${c.cpuS.toFixed(2)} s (user ${c.userS.toFixed(2)}, sys ${c.sysS.toFixed(2)}), wall ${c.wallS.toFixed(1)} s, max RSS ${c.maxRssMb.toFixed(0)} MB\n`,
        );
      }
    }
  } finally {
    blaster.stop();
  }
  const row = (tool: string, xs: Array<Cost & { joined: number }>) =>
    `| ${tool} | ${Math.min(...xs.map((x) => x.joined)).toLocaleString('en-US')} | ${xs.map((x) => x.cpuS.toFixed(2)).join(' / ')} | ${median(xs.map((x) => x.cpuS)).toFixed(2)} | ${median(xs.map((x) => x.userS)).toFixed(2)} / ${median(xs.map((x) => x.sysS)).toFixed(2)} | ${median(xs.map((x) => x.wallS)).toFixed(1)} |`;
  const ratio = median(rt.map((x) => x.cpuS)) / median(bare.map((x) => x.cpuS));
  process.stdout.write(
    [
      `${connections.toLocaleString('en-US')} connections, no traffic, ${durationS} s step, ${workers} generator process${workers === 1 ? '' : 'es'}, ${trials} trials; load average at start ${load.toFixed(2)}`,
      '',
      '| tool | joined (min) | CPU s per trial (user+sys, whole tree) | median CPU s | median user / sys s | median wall s |',
      '|---|---|---|---|---|---|',
      row('bare ws', bare),
      row('rtcap', rt),
      '',
      `rtcap ÷ bare ws (median CPU s): ${ratio.toFixed(2)}; rtcap's fixed cost beyond the bare client: ${(median(rt.map((x) => x.cpuS)) - median(bare.map((x) => x.cpuS))).toFixed(2)} CPU s.`,
    ].join('\n') + '\n',
  );
}

main().catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exit(1);
});
