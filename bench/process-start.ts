/**
 * Start-up of rtcap's processes, bundled (dist/bundle/, scripts/bundle.mjs) against tsc's output
 * (dist/): the CPU seconds (user + sys, from the process's own counters) a process spends before
 * it can work.
 *
 * - `serve`: `rtcap serve --no-database --port 0 --ready-json` until its ready line (the CLI,
 *   its arguments, the server's modules, listening), read from /proc/PID/stat at that moment.
 * - an entry (cli/main.js, what every command loads first; generator/worker-main.js, a generator
 *   process): a forked process that imports it and reports its own CPU once the import is done.
 *
 * Trials alternate bundle / dist; the figure is the median of each and their ratio in this run.
 *
 * Run: npm run build && npx tsx bench/process-start.ts [--trials 7]
 */
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { option } from './support/cli.js';

const trials = Number(option('trials', '7'));
const root = resolve(import.meta.dirname, '..');
const importer = join(import.meta.dirname, 'support', 'import-cpu.mjs');
const runner = join(import.meta.dirname, 'support', 'run-cli.mjs');

type Build = 'bundle' | 'dist';
const dir = (b: Build) => (b === 'bundle' ? join(root, 'dist', 'bundle') : join(root, 'dist'));

/** CPU seconds of a live process, from /proc/PID/stat (utime + stime, in clock ticks of 10 ms). */
function procCpuS(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** `rtcap serve` until ready: its CPU seconds then, and the wall time. */
function serveToReady(b: Build): Promise<{ cpuS: number; wallS: number }> {
  const t0 = performance.now();
  const argv = ['serve', '--no-database', '--port', '0', '--host', '127.0.0.1', '--ready-json'];
  const child = spawn(process.execPath, [runner, join(dir(b), 'cli', 'main.js'), ...argv], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((res, rej) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error('serve not ready within 30 s'));
    }, 30_000);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('"ready"')) return;
      clearTimeout(timer);
      const cpuS = procCpuS(child.pid!);
      child.kill('SIGINT');
      res({ cpuS, wallS: (performance.now() - t0) / 1000 });
    });
  });
}

/** A forked process that imports `entry` and reports its own CPU seconds. */
function importCpu(entry: string): Promise<number> {
  // Not the bench's own flags (tsx's loader): the entry runs as rtcap runs it.
  const child = fork(importer, [entry], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((res, rej) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`${entry}: no answer within 30 s`));
    }, 30_000);
    child.once('message', (m: { cpuS: number }) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      res(m.cpuS);
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const cases: { name: string; measure: (b: Build) => Promise<number> }[] = [
  { name: 'rtcap serve to ready', measure: async (b) => (await serveToReady(b)).cpuS },
  ...['cli/main.js', 'generator/worker-main.js'].map((e) => ({
    name: `import ${e}`,
    measure: (b: Build) => importCpu(join(dir(b), e)),
  })),
];

const load0 = loadavg()[0];
const started = new Date().toISOString();
console.log(`process start-up, ${trials} trials each, alternating bundle / dist`);
console.log('| process | bundle CPU s (median, range) | dist CPU s | bundle ÷ dist |');
console.log('|---|---:|---:|---:|');
for (const c of cases) {
  const got: Record<Build, number[]> = { bundle: [], dist: [] };
  for (let t = 0; t < trials; t++)
    for (const b of t % 2 === 0 ? (['bundle', 'dist'] as const) : (['dist', 'bundle'] as const))
      got[b].push(await c.measure(b));
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
  console.log(
    `| ${c.name} | ${median(got.bundle).toFixed(2)} (${range(got.bundle)}) | ${median(got.dist).toFixed(2)} (${range(got.dist)}) | ${(median(got.bundle) / median(got.dist)).toFixed(2)} |`,
  );
}
console.log(
  `${started} → ${new Date().toISOString()}, load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
);
