/**
 * Joined connections the built-in server holds with `--workers N`, and its RSS per joined
 * idle connection (30,000 joined connections with --workers 2; one process can
 * hold at most ~20,000 sockets, its open-file limit). One broadcast then checks that every
 * member on every worker receives it.
 *
 * Clients are raw TCP sockets (handshake and join by hand, then byte counting) in several
 * child processes, each under its own 20,000-file limit and its own loopback source address
 * (127.0.0.2, .3, ...) so no address runs out of ephemeral ports. They heartbeat every 20 s,
 * so the server's 60 s idle timeout never fires during a run.
 *
 * Run: npx tsx bench/server-connections.ts [--connections 30000] [--workers 2] [--clients 2]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { processTree } from '../src/monitor/proc.js';
import { DEV_JWT_SECRET } from '../src/builtin/config.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const TOPIC = 'realtime:conns';

function clientFrame(text: string): Buffer {
  const p = Buffer.from(text);
  return Buffer.concat([Buffer.from([0x81, 0x80 | p.length, 0, 0, 0, 0]), p]);
}

// ------------------------------------------------------------------ client process

async function clientMain(
  port: number,
  count: number,
  localAddress: string,
  token: string,
): Promise<void> {
  const socks: { s: Socket; bytes: number }[] = [];
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const s = connect({ port, host: '127.0.0.1', localAddress });
      const rec = { s, bytes: 0 };
      let stage = 0;
      let head = Buffer.alloc(0);
      s.on('error', reject);
      s.on('connect', () =>
        s.write(
          `GET /socket/websocket?vsn=2.0.0&apikey=${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
        ),
      );
      s.on('data', (d: Buffer) => {
        if (stage === 2) {
          rec.bytes += d.length;
          return;
        }
        head = Buffer.concat([head, d]);
        if (stage === 0) {
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          if (!head.subarray(0, 12).toString().includes('101'))
            return reject(new Error(head.subarray(0, end).toString()));
          head = head.subarray(end + 4);
          stage = 1;
          s.write(clientFrame(JSON.stringify(['1', '1', TOPIC, 'phx_join', { config: {} }])));
        }
        if (stage === 1 && head.length >= 2 && head.length >= 2 + head[1]) {
          if (
            !head
              .subarray(2, 2 + head[1])
              .toString()
              .includes('"ok"')
          )
            return reject(new Error(head.toString()));
          stage = 2;
          socks.push(rec);
          resolve();
        }
      });
    });
  const hb = clientFrame(JSON.stringify([null, 'hb', 'phoenix', 'heartbeat', {}]));
  setInterval(() => {
    for (const r of socks) r.s.write(hb);
  }, 20_000).unref();
  for (let i = 0; i < count; i += 50)
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, open));
  process.stdout.write(`${JSON.stringify({ joined: socks.length })}\n`);
  // On "check": report how many sockets received more than heartbeat replies since "mark".
  let mark = new Map<Socket, number>();
  createInterface({ input: process.stdin }).on('line', (l) => {
    if (l === 'mark') mark = new Map(socks.map((r) => [r.s, r.bytes]));
    if (l === 'check') {
      const got = socks.filter((r) => r.bytes - (mark.get(r.s) ?? 0) >= 40).length;
      process.stdout.write(`${JSON.stringify({ received: got })}\n`);
    }
    if (l === 'exit') process.exit(0);
  });
}

// ------------------------------------------------------------------ parent

function rssMb(pid: number): number {
  return (processTree(pid).reduce((n, s) => n + s.rssPages, 0) * 4) / 1024;
}

function lineReader(child: ChildProcess): () => Promise<Record<string, number>> {
  const queue: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => {
    const w = waiters.shift();
    if (w) w(l);
    else queue.push(l);
  });
  return () =>
    new Promise((resolve) => {
      const l = queue.shift();
      if (l !== undefined) resolve(JSON.parse(l));
      else waiters.push((x) => resolve(JSON.parse(x)));
    });
}

async function main(): Promise<void> {
  const connections = Number(opt('connections', '30000'));
  const workers = Number(opt('workers', '2'));
  const clients = Number(opt('clients', '2'));
  const script = `const { main } = await import(${JSON.stringify(new URL('../src/cli/main.ts', import.meta.url).href)}); await main(${JSON.stringify(['serve', '--port', '0', '--ready-json', '--no-database', '--workers', String(workers)])});`;
  const server = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = await lineReader(server)();
  const port = ready.port;
  await new Promise((r) => setTimeout(r, 2000));
  const baseMb = rssMb(server.pid!);
  const token = await new SignJWT({ role: 'anon', exp: Math.floor(Date.now() / 1000) + 3600 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(DEV_JWT_SECRET));
  const t0 = performance.now();
  const procs = Array.from({ length: clients }, (_, i) => {
    const n = Math.floor(connections / clients) + (i < connections % clients ? 1 : 0);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        new URL(import.meta.url).pathname,
        '--client',
        String(port),
        String(n),
        `127.0.0.${2 + i}`,
        token,
      ],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    return { child, read: lineReader(child) };
  });
  const joined = (await Promise.all(procs.map((p) => p.read()))).reduce((n, r) => n + r.joined, 0);
  const joinS = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 3000));
  const loadedMb = rssMb(server.pid!);
  const perWorker = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const split = perWorker
    .split('\n')
    .filter((l) => l.startsWith('realtime_worker_connections{'))
    .map((l) => l.replace('realtime_worker_connections', '').trim());
  for (const p of procs) p.child.stdin!.write('mark\n');
  await new Promise((r) => setTimeout(r, 200));
  const sender = new WebSocket(`ws://127.0.0.1:${port}/socket/websocket?vsn=2.0.0&apikey=${token}`);
  await new Promise((r) => sender.once('open', r));
  sender.send(JSON.stringify(['1', '1', TOPIC, 'phx_join', { config: {} }]));
  await new Promise((r) => sender.once('message', r));
  sender.send(
    JSON.stringify([
      null,
      '2',
      TOPIC,
      'broadcast',
      { event: 'all', payload: { check: 'every member on every worker' } },
    ]),
  );
  await new Promise((r) => setTimeout(r, 5000));
  for (const p of procs) p.child.stdin!.write('check\n');
  const received = (await Promise.all(procs.map((p) => p.read()))).reduce(
    (n, r) => n + r.received,
    0,
  );
  const perConnKb = ((loadedMb - baseMb) * 1024) / joined;
  const lines = [
    `| connections joined | workers | join time | server RSS idle | server RSS loaded | server RSS per joined connection | broadcast received by |`,
    `|---|---|---|---|---|---|---|`,
    `| ${joined} of ${connections} | ${workers} (${split.join(', ')}) | ${joinS.toFixed(1)} s | ${baseMb.toFixed(0)} MB | ${loadedMb.toFixed(0)} MB | ${perConnKb.toFixed(1)} KB | ${received} of ${joined} |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  for (const p of procs) p.child.stdin!.write('exit\n');
  sender.close();
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  process.exit(received === joined && joined === connections ? 0 : 1);
}

if (args[0] === '--client') void clientMain(Number(args[1]), Number(args[2]), args[3], args[4]);
else void main();
