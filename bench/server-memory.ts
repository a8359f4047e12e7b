/**
 * Where the built-in server's memory per idle joined connection goes: one server process
 * (in this process, no database) holds N connections that dial and join as rtcap's generator
 * does (vsn 2.0.0, the token as `apikey` and as the join's `access_token`, the same join
 * config), opened from a child process. After a forced collection it prints the server's RSS
 * and V8 heap growth per connection, then a heap snapshot's self sizes grouped by kind
 * (constructor, closure, string, ...) per connection, largest first.
 *
 * Run: npx tsx bench/server-memory.ts [--connections 5000] [--top 30] [--no-snapshot]
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { DEV_JWT_SECRET } from '../src/builtin/config.js';
import { startServer } from '../src/server/server.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const TOPIC = 'realtime:bench';

/** Child: open and join `count` connections in batches of 50, say so, hold until killed. */
async function clientMain(url: string, count: number, token: string): Promise<void> {
  const socks: WebSocket[] = [];
  const open = () =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${url}?vsn=2.0.0&apikey=${encodeURIComponent(token)}`, {
        perMessageDeflate: false,
      });
      ws.once('error', reject);
      ws.once('open', () => {
        ws.once('message', () => resolve(ws));
        const payload = {
          config: {
            broadcast: { ack: false, self: false },
            presence: { key: '', enabled: false },
            postgres_changes: [],
            private: false,
          },
          access_token: token,
        };
        ws.send(JSON.stringify(['1', '1', TOPIC, 'phx_join', payload]));
      });
    });
  for (let i = 0; i < count; i += 50)
    socks.push(...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, open))));
  // Heartbeats every 20 s keep the server's 60 s idle timeout away.
  let ref = 2;
  setInterval(() => {
    for (const ws of socks)
      ws.send(JSON.stringify([null, String(ref++), 'phoenix', 'heartbeat', {}]));
  }, 20_000);
  process.stdout.write(`joined ${socks.length}\n`);
}

function collect(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
}

interface Group {
  bytes: number;
  count: number;
}

/** Self sizes of a heap snapshot grouped by node kind (constructor name for objects). */
function groupSnapshot(file: string): Map<string, Group> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const out = new Map<string, Group>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + iType]];
    const name = snap.strings[snap.nodes[i + iName]];
    const key =
      type === 'object' || type === 'closure' || type === 'native'
        ? `${type} ${name.slice(0, 60)}`
        : `(${type})`;
    const g = out.get(key) ?? { bytes: 0, count: 0 };
    g.bytes += snap.nodes[i + iSize];
    g.count++;
    out.set(key, g);
  }
  return out;
}

async function main(): Promise<void> {
  const n = Number(opt('connections', '5000'));
  const top = Number(opt('top', '30'));
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    database: false,
    jwtSecret: DEV_JWT_SECRET,
  });
  const token = await new SignJWT({ role: 'anon' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(DEV_JWT_SECRET));
  const snapshot = !args.includes('--no-snapshot');
  const base = snapshot ? groupSnapshot(snapAt('base')) : new Map<string, Group>();
  collect();
  const before = process.memoryUsage();
  const child = spawn(
    process.execPath,
    [...process.execArgv, process.argv[1], '--child', server.url, String(n), token],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  await new Promise((r) => setTimeout(r, 2000));
  collect();
  const after = process.memoryUsage();
  const kb = (a: number, b: number) => ((a - b) / 1024 / n).toFixed(2);
  console.log(`${line}; per connection (KiB): rss ${kb(after.rss, before.rss)}, heap used`);
  console.log(
    `  ${kb(after.heapUsed, before.heapUsed)}, external ${kb(after.external, before.external)},` +
      ` array buffers ${kb(after.arrayBuffers, before.arrayBuffers)}`,
  );
  if (snapshot) {
    const now = groupSnapshot(snapAt('joined'));
    const rows = [...now].map(([k, g]) => {
      const b = base.get(k) ?? { bytes: 0, count: 0 };
      return { k, bytes: (g.bytes - b.bytes) / n, count: (g.count - b.count) / n };
    });
    rows.sort((a, b) => b.bytes - a.bytes);
    const total = rows.reduce((a, r) => a + r.bytes, 0);
    console.log(`heap snapshot growth per connection: ${total.toFixed(0)} B`);
    for (const r of rows.slice(0, top))
      console.log(`${r.bytes.toFixed(0).padStart(7)} B ${r.count.toFixed(2).padStart(6)}× ${r.k}`);
  }
  child.kill();
  await server.close();
  process.exit(0);
}

function snapAt(tag: string): string {
  const file = join(tmpdir(), `rtcap-server-memory-${process.pid}-${tag}.heapsnapshot`);
  writeHeapSnapshot(file);
  return file.endsWith('.heapsnapshot') ? keepOnce(file) : file;
}

/** Removes the snapshot file once read (they are hundreds of MB). */
function keepOnce(file: string): string {
  if (!process.env.KEEP_SNAPSHOT) process.once('exit', () => rmSync(file, { force: true }));
  return file;
}

if (args[0] === '--child') void clientMain(args[1], Number(args[2]), args[3]);
else void main();
