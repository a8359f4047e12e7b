/**
 * A burst of one broadcast: `--members` connections (default 15,000) joined
 * to one topic of the relay server (bench/support/blaster.ts, which frames each broadcast
 * once), one broadcast a second for `--duration` s, received by rtcap with the members in one
 * generator process and then spread over two (`--workers 1` vs `--workers 2`, the two
 * alternating over `--repeats`, so both see the same machine). Each broadcast lands as one
 * burst of frames in every process holding members; the figure is the generator's event-loop
 * lag p99 (the worst process, over the step), beside receipt latency and the verdict. Nothing
 * is pinned: the blaster and the generator processes share the host's cores.
 *
 * Run: npx tsx bench/burst-fanout.ts [--members 15000] [--duration 10] [--repeats 2]
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { option, startBlaster } from './support/cli.js';
import { tempDir } from '../test/support/temp-dir.js';

const members = Number(option('members', '15000'));
const durationS = Number(option('duration', '10'));
const repeats = Number(option('repeats', '2'));
const root = resolve(import.meta.dirname, '..');

interface Row {
  workers: number;
  lagP99Ms: number | null;
  cpuPct: number | null;
  p99Ms: number | null;
  delivery: number | null;
  verdict: string;
  burstWarning: string | null;
}

function rtcap(url: string, workers: number): Promise<Row> {
  const dir = tempDir('rtcap-burst-');
  const profile = join(dir, 'profile.yaml');
  writeFileSync(
    profile,
    [
      'name: burst-fanout',
      'scenario: broadcast-public',
      `target: { url: "${url}", vsn: "1.0.0", join_timeout: 30s }`,
      `load: { join_rate: 1500, workers: ${workers}, drain: 5s, steps: [ { connections: ${members}, send_rate: 1, duration: ${durationS}s } ] }`,
      'slo: { p95_ms: 1000 }',
      '',
    ].join('\n'),
  );
  return new Promise((res, rej) => {
    const child = spawn(
      process.execPath,
      ['bin/rtcap.js', 'run', profile, '--out', join(dir, 'out'), '--no-progress'],
      { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', () => {
      try {
        const r = JSON.parse(readFileSync(join(dir, 'out', 'result.json'), 'utf8')) as {
          steps: Array<{
            generator: { event_loop_lag_p99_ms: number | null; cpu_pct: number | null };
            delivery_latency_ms: { p99: number | null };
            delivery_rate: number | null;
            verdict: string;
          }>;
        };
        const s = r.steps[0];
        const warning = /warning: step 1: (one broadcast[^\n]*)/.exec(err)?.[1] ?? null;
        res({
          workers,
          lagP99Ms: s.generator.event_loop_lag_p99_ms,
          cpuPct: s.generator.cpu_pct,
          p99Ms: s.delivery_latency_ms.p99,
          delivery: s.delivery_rate,
          verdict: s.verdict,
          burstWarning: warning,
        });
      } catch (e) {
        rej(new Error(`rtcap run failed: ${String(e)}: ${err.slice(-400)}`));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const blaster = await startBlaster({ cpu: null, stderr: 'ignore' });
  const url = `ws://127.0.0.1:${blaster.port}/socket/websocket`;
  const rows: Row[] = [];
  const loads: number[] = [];
  try {
    for (let r = 0; r < repeats; r++) {
      for (const w of r % 2 === 0 ? [1, 2] : [2, 1]) {
        loads.push(loadavg()[0]);
        const row = await rtcap(url, w);
        rows.push(row);
        process.stderr.write(
          `repeat ${r + 1}, ${w} process(es): lag p99 ${row.lagP99Ms} ms, CPU ${row.cpuPct} %, receipt p99 ${row.p99Ms} ms, delivery ${row.delivery}, ${row.verdict}${row.burstWarning ? ' (warned before the step)' : ''}\n`,
        );
      }
    }
  } finally {
    blaster.stop();
  }
  const fmt = (v: number | null, d = 1) => (v === null ? '—' : v.toFixed(d));
  const lines = [
    `| generator processes | ${members.toLocaleString('en-US')}-member topic: members per process | event-loop lag p99, ms (each run) | median | busiest process CPU % | receipt p99, ms | delivery | verdict | warned before the step |`,
    `|---|---|---|---|---|---|---|---|---|`,
    ...[1, 2].map((w) => {
      const rs = rows.filter((r) => r.workers === w);
      return `| ${w} | ${Math.ceil(members / w).toLocaleString('en-US')} | ${rs.map((r) => fmt(r.lagP99Ms)).join(' / ')} | ${fmt(median(rs.map((r) => r.lagP99Ms ?? NaN)))} | ${rs.map((r) => fmt(r.cpuPct, 0)).join(' / ')} | ${rs.map((r) => fmt(r.p99Ms)).join(' / ')} | ${rs.map((r) => (r.delivery === null ? '—' : `${(r.delivery * 100).toFixed(2)} %`)).join(' / ')} | ${rs.map((r) => r.verdict).join(' / ')} | ${rs.map((r) => (r.burstWarning ? 'yes' : 'no')).join(' / ')} |`;
    }),
    '',
    `Load average (1 min) ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${cpus().length} CPUs.`,
    ...[...new Set(rows.map((r) => r.burstWarning).filter((w): w is string => w !== null))].map(
      (w) => `Warning printed: "${w}"`,
    ),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exit(1);
});
