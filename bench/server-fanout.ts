/**
 * Fan-out capacity of the built-in server: deliveries/s one server process
 * writes to 1,000 sockets joined to one topic, on one core, for small v2 broadcasts.
 *
 * The server runs pinned to CPU 1 (bench/server-fanout-target.ts); this process, pinned to
 * CPU 0, holds the receivers; the sender (bench/server-fanout-sender.ts) is its own process on
 * the server's core, so the server pays for it too and sends arrive one per event-loop turn.
 * Receivers are raw TCP sockets that did the WebSocket handshake and the join by hand and then only
 * count bytes: every delivery is a frame of known length, so deliveries = bytes ÷ frame length.
 * They read in bulk, every 50 ms, so the kernel's socket buffers collect many frames per read: the
 * receiving side then costs far less than the server's work (a `ws` client per socket could not
 * absorb 100,000+ frames/s on one core). The server still writes every frame to every socket one by
 * one. The server's CPU comes from /proc/<pid>/stat over the measured window.
 *
 * A step keeps up when ≥ 99.9 % of the offered deliveries arrive within the window plus a
 * 1 s drain. "Deliveries per server CPU-second" is the capacity of one fully busy core.
 *
 * Run: taskset -c 0 npx tsx bench/server-fanout.ts [--connections 1000] [--duration 8]
 *        [--deliveries 50000,80000,100000,120000,150000] [--sender-cpu 1]
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { SignJWT } from 'jose';
import { readProcStat } from '../src/monitor/proc.js';
import { DEV_JWT_SECRET } from '../src/builtin/config.js';
import { option } from './support/cli.js';

const connections = Number(option('connections', '1000'));
const durationS = Number(option('duration', '8'));
const ladder = option('deliveries', '50000,80000,100000,120000,150000').split(',').map(Number);
/** The sender shares the server's core by default, so sends never arrive in bursts that the
 * server's write coalescing would turn into cheaper writes; `--sender-cpu 0` puts it with the
 * receivers instead (bursty arrivals, the overload regime). */
const senderCpu = option('sender-cpu', '1');
const TOPIC = 'realtime:fanout';

/** A masked client text frame (mask key 0000: legal, and the payload stays readable). */
function clientFrame(text: string): Buffer {
  const p = Buffer.from(text);
  if (p.length >= 126) throw new Error('bench frames are small');
  return Buffer.concat([Buffer.from([0x81, 0x80 | p.length, 0, 0, 0, 0]), p]);
}

function startTarget(): Promise<{ port: number; pid: number; stop: () => void }> {
  const child = spawn(
    'taskset',
    [
      '-c',
      '1',
      process.execPath,
      ...(process.env.FANOUT_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/fanout-prof'] : []),
      '--import',
      'tsx',
      'bench/server-fanout-target.ts',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (l) => {
      const m = JSON.parse(l) as { port: number; pid: number };
      resolve({ ...m, stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (c) => reject(new Error(`target exited ${c}`)));
  });
}

/** Handshake and join by hand, then count every byte that arrives. */
function receiver(port: number, token: string, counter: { bytes: number }): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    s.setNoDelay(true);
    let stage: 'upgrade' | 'join' | 'count' = 'upgrade';
    let head = Buffer.alloc(0);
    s.on('error', reject);
    s.on('connect', () => {
      s.write(
        `GET /socket/websocket?vsn=2.0.0&apikey=${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
    });
    s.on('data', (d: Buffer) => {
      if (stage === 'count') {
        counter.bytes += d.length;
        return;
      }
      head = Buffer.concat([head, d]);
      if (stage === 'upgrade') {
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!head.subarray(0, 12).toString().includes('101'))
          return reject(new Error(head.toString()));
        head = head.subarray(end + 4);
        stage = 'join';
        s.write(
          clientFrame(
            JSON.stringify([
              '1',
              '1',
              TOPIC,
              'phx_join',
              { config: { broadcast: { self: false } } },
            ]),
          ),
        );
      }
      // The join reply is the only frame before broadcasts start.
      if (stage === 'join' && head.length >= 2 && head.length >= 2 + head[1]) {
        stage = 'count';
        counter.bytes += head.length - (2 + head[1]);
        s.pause();
        resolve(s);
      }
    });
  });
}

function run(cmd: string, argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${argv.join(' ')} exited ${code}`)),
    );
  });
}

/** Frames written and socket flushes so far, from the server's /metrics. */
async function coalescing(port: number): Promise<{ frames: number; flushes: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const read = (name: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`${name} `))
        ?.split(' ')[1] ?? Number.NaN,
    );
  return {
    frames: read('realtime_socket_frames_written_total'),
    flushes: read('realtime_socket_flushes_total'),
  };
}

function cpuTicks(pid: number): number {
  return readProcStat(pid)?.cpuTicks ?? Number.NaN;
}

interface Step {
  framesPerFlush: number;
  offered: number;
  delivered: number;
  deliveredPerS: number;
  serverCpuPct: number;
  perCpuSecond: number;
  keepsUp: boolean;
}

async function main() {
  const target = await startTarget();
  const token = await new SignJWT({ role: 'anon', exp: Math.floor(Date.now() / 1000) + 3600 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(DEV_JWT_SECRET));
  const counter = { bytes: 0 };
  const socks: Socket[] = [];
  for (let i = 0; i < connections; i += 100) {
    socks.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(100, connections - i) }, () =>
          receiver(target.port, token, counter),
        ),
      )),
    );
  }
  // The exact frame each receiver gets for one message (fixed length: i has six digits).
  const delivered = `[null,null,"${TOPIC}","broadcast",{"event":"b","payload":{"i":123456}}]`;
  const frameBytes = 2 + Buffer.byteLength(delivered);

  // Bulk reads: resume every socket for one poll phase every 50 ms, then pause again.
  const reader = setInterval(() => {
    for (const s of socks) s.resume();
    setImmediate(() => {
      for (const s of socks) s.pause();
    });
  }, 50);

  const steps: Step[] = [];
  // A first unreported step warms the server's JIT and the sockets.
  for (const offered of [ladder[0], ...ladder]) {
    const warmup = steps.length === 0 && offered === ladder[0] && !('warm' in counter);
    const ratePerS = offered / connections;
    counter.bytes = 0;
    const t0Ticks = cpuTicks(target.pid);
    const before = await coalescing(target.port);
    const out = await run('taskset', [
      '-c',
      senderCpu,
      process.execPath,
      '--import',
      'tsx',
      'bench/server-fanout-sender.ts',
      String(target.port),
      token,
      TOPIC,
      String(ratePerS),
      String(durationS),
    ]);
    // The sender's own window: the server is idle while the sender process starts.
    const { sent, elapsedS: windowS } = JSON.parse(out) as { sent: number; elapsedS: number };
    await new Promise((r) => setTimeout(r, 1000)); // drain
    const cpuS = (cpuTicks(target.pid) - t0Ticks) / 100;
    const got = counter.bytes / frameBytes;
    const expected = sent * connections;
    const after = await coalescing(target.port);
    const step: Step = {
      framesPerFlush: (after.frames - before.frames) / Math.max(1, after.flushes - before.flushes),
      offered,
      delivered: got / expected,
      deliveredPerS: got / windowS,
      serverCpuPct: (cpuS / windowS) * 100,
      perCpuSecond: got / cpuS,
      keepsUp: got / expected >= 0.999,
    };
    if (warmup) {
      Object.assign(counter, { warm: true });
      continue;
    }
    steps.push(step);
    process.stderr.write(
      `${offered}/s offered → ${(step.delivered * 100).toFixed(2)} % delivered, ${Math.round(step.deliveredPerS)}/s, server CPU ${step.serverCpuPct.toFixed(0)} %, ${Math.round(step.perCpuSecond)} deliveries per CPU-second, ${step.framesPerFlush.toFixed(2)} frames per socket flush ${step.keepsUp ? '' : 'FALLS BEHIND'}\n`,
    );
    if (!step.keepsUp) break;
  }
  clearInterval(reader);
  for (const s of socks) s.destroy();
  target.stop();
  const best = Math.max(0, ...steps.filter((s) => s.keepsUp).map((s) => s.offered));
  const lines = [
    `| deliveries/s offered | delivered | delivered/s | server CPU % of one core | deliveries per server CPU-second | frames per socket flush |`,
    `|---|---|---|---|---|---|`,
    ...steps.map(
      (s) =>
        `| ${s.offered} | ${(s.delivered * 100).toFixed(2)} % | ${Math.round(s.deliveredPerS)} | ${s.serverCpuPct.toFixed(0)} | ${Math.round(s.perCpuSecond)} | ${s.framesPerFlush.toFixed(2)} |`,
    ),
    '',
    `Highest offered rate fully delivered: ${best}/s (${connections} sockets, one topic, ${frameBytes}-byte frames, ${durationS} s per step).`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exit(0);
}

void main();
