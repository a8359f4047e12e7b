/**
 * The generator's memory per joined idle connection: one generator process holds N
 * joined connections with no traffic; its RSS at N minus its RSS at 1, over N − 1. The server
 * is the fan-out blaster on CPU 1 (bench/support/blaster.ts).
 * Run: npx tsx bench/generator-memory.ts [--connections 5000,15000]
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { tempDir } from '../test/support/temp-dir.js';

const args = process.argv.slice(2);
const i = args.indexOf('--connections');
const sizes = (i >= 0 ? args[i + 1] : '5000,15000').split(',').map(Number);
const root = resolve(import.meta.dirname, '..');

async function main() {
  const child = spawn(
    'taskset',
    ['-c', '1', process.execPath, '--import', 'tsx', join(root, 'bench/support/blaster.ts')],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const port = await new Promise<number>((res) =>
    createInterface({ input: child.stdout! }).once('line', (l) =>
      res((JSON.parse(l) as { port: number }).port),
    ),
  );
  const url = `ws://127.0.0.1:${port}/socket/websocket`;
  const rows: string[] = [];
  const rss = async (n: number) => {
    const dir = tempDir('rtcap-mem-');
    const profile = join(dir, 'p.yaml');
    writeFileSync(
      profile,
      `name: mem\nscenario: broadcast-public\ntarget: { url: "${url}" }\nload: { join_rate: 2000, workers: 1, steps: [ { connections: ${n}, send_rate: 0, duration: 6s } ] }\n`,
    );
    await new Promise<void>((res, rej) => {
      const p = spawn(
        process.execPath,
        [
          'bin/rtcap.js',
          'run',
          profile,
          '--out',
          join(dir, 'out'),
          '--generator-cpus',
          '0',
          '--no-progress',
        ],
        { cwd: root, stdio: 'ignore' },
      );
      p.on('exit', (code) => (code === 0 ? res() : rej(new Error(`rtcap exited ${code}`))));
    });
    const r = JSON.parse(readFileSync(join(dir, 'out', 'result.json'), 'utf8')) as {
      steps: Array<{ generator: { rss_mb: number }; connections: { joined: number } }>;
    };
    return { rssMb: r.steps[0].generator.rss_mb, joined: r.steps[0].connections.joined };
  };
  try {
    const base = await rss(1);
    rows.push(`| 1 | ${base.joined} | ${base.rssMb.toFixed(1)} | — |`);
    for (const n of sizes) {
      const m = await rss(n);
      const perConnKb = ((m.rssMb - base.rssMb) * 1024) / (m.joined - 1);
      rows.push(
        `| ${n.toLocaleString('en-US')} | ${m.joined.toLocaleString('en-US')} | ${m.rssMb.toFixed(1)} | ${perConnKb.toFixed(1)} KB |`,
      );
      process.stderr.write(
        `${n}: joined ${m.joined}, RSS ${m.rssMb} MB, ${perConnKb.toFixed(1)} KB per connection\n`,
      );
    }
  } finally {
    child.kill('SIGTERM');
  }
  process.stdout.write(
    [
      '| connections | joined | generator process RSS (MB) | RSS per joined idle connection |',
      '|---|---|---|---|',
      ...rows,
    ].join('\n') + '\n',
  );
}

main().catch((e) => {
  process.stderr.write(String(e) + '\n');
  process.exit(1);
});
