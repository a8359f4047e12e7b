/**
 * What one heartbeat costs the built-in server, and what it costs a generator connection.
 *
 * One server process (bench/server-heartbeat-server.ts: one process, no database) holds N
 * connections that a second process (bench/server-heartbeat-client.ts) opens and joins with
 * rtcap's own client Connection, as the generator does. Every connection heartbeats every
 * --interval-ms, far more often than the 25 s of a real run, so that a few thousand
 * connections make thousands of heartbeats a second; they are spread evenly over the interval.
 * After a warm-up, each process's own process.cpuUsage() is read at both ends of a fixed window;
 * its CPU ÷ the heartbeats answered in the window (sent − the change in those still unanswered)
 * is the figure, user and system (the kernel: reads, writes, polling) apart. A second window
 * with heartbeats paused gives what holding the idle connections costs without them (the
 * idle-timeout sweep, timers).
 *
 * --compare DIR runs the server from DIR's src/server (a copy of the code before a change:
 * `git archive main src | tar -x -C DIR`, inside this checkout so its imports resolve) and from
 * this tree's, alternating (before, after, after, before, ...), fresh processes every round; the
 * client is always this tree's. --compare-client DIR does the same with the client's code (DIR's
 * src/client, rtcap's generator connection) against this tree's server, and compares the
 * client's CPU per heartbeat. --profile DIR adds one round per server after the measured ones,
 * with the V8 CPU profiler over the window in both processes (not counted in the figures: the
 * profiler costs CPU), writes DIR/server-LABEL.cpuprofile and client-LABEL.cpuprofile (and
 * server-LABEL-idle.cpuprofile, the paused window) and prints where their samples fall.
 *
 * Run: nice -n 15 npx tsx bench/server-heartbeat.ts [--connections 10000] [--interval-ms 2000]
 *        [--window-s 10] [--rounds 3] [--compare DIR | --compare-client DIR] [--profile DIR]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { DEV_JWT_SECRET } from '../src/builtin/config.js';
import { printSummary, summariseProfile } from './support/cpu-profile.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string | undefined) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const here = fileURLToPath(new URL('.', import.meta.url));
const N = Number(opt('connections', '10000'));
const INTERVAL_MS = Number(opt('interval-ms', '2000'));
const WINDOW_MS = Number(opt('window-s', '10')) * 1000;
const ROUNDS = Math.min(10, Number(opt('rounds', '3'))); // 0: the profiled rounds only
const COMPARE = opt('compare', undefined);
const COMPARE_CLIENT = opt('compare-client', undefined);
/** Which side's code the rounds vary, and so whose CPU per heartbeat is compared. */
const VARIED: 'server' | 'client' = COMPARE_CLIENT ? 'client' : 'server';
const PROFILE_DIR = opt('profile', undefined);
const WARMUP_MS = 3000;
const IDLE_WINDOW_MS = Math.max(2000, WINDOW_MS / 2);
/** The longest any child may take to answer; joining N connections gets its own allowance. */
const ANSWER_MS = 20_000;
const JOIN_MS = 60_000 + N * 10;

type Msg = Record<string, unknown>;
interface Cpu {
  user: number;
  system: number;
}
interface Child {
  proc: ChildProcess;
  send(cmd: string): void;
  read(timeoutMs?: number): Promise<Msg>;
}

function startChild(script: string, argv: string[]): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(here, script), ...argv], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const queue: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  createInterface({ input: proc.stdout! }).on('line', (l) => {
    const w = waiters.shift();
    if (w) w(l);
    else queue.push(l);
  });
  return {
    proc,
    send: (cmd) => proc.stdin!.write(`${cmd}\n`),
    read: (timeoutMs = ANSWER_MS) =>
      new Promise((done, fail) => {
        const l = queue.shift();
        if (l !== undefined) return done(JSON.parse(l) as Msg);
        const timer = setTimeout(() => fail(new Error(`${script}: no answer`)), timeoutMs);
        waiters.push((x) => {
          clearTimeout(timer);
          done(JSON.parse(x) as Msg);
        });
      }),
  };
}

const ask = async (c: Child, cmd: string): Promise<Msg> => {
  c.send(cmd);
  return c.read();
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A wait that does not hold the process open (the upper bound of a race). */
const atMost = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());
const cpuUs = (a: Msg, b: Msg) => {
  const x = a.cpu as Cpu;
  const y = b.cpu as Cpu;
  return { user: y.user - x.user, system: y.system - x.system };
};

interface Side {
  usPerHb: number;
  userUs: number;
  systemUs: number;
  /** % of one core over the window. */
  core: number;
  /** CPU ms per second with heartbeats paused. */
  idleMsPerS: number;
}

interface Round {
  label: string;
  joined: number;
  hbPerS: number;
  errors: number;
  server: Side;
  client: Side;
}

function side(busy: Cpu, idle: Cpu, answered: number): Side {
  const total = busy.user + busy.system;
  return {
    usPerHb: total / answered,
    userUs: busy.user / answered,
    systemUs: busy.system / answered,
    core: (total / (WINDOW_MS * 1000)) * 100,
    idleMsPerS: (idle.user + idle.system) / IDLE_WINDOW_MS,
  };
}

/** Both windows on running children; profiles go to `profile` when given. */
async function measure(
  server: Child,
  client: Child,
  profile?: string,
): Promise<Omit<Round, 'label' | 'joined'>> {
  if (profile) for (const c of [server, client]) await ask(c, 'profile-start');
  const s0 = await ask(server, 'stat');
  const c0 = await ask(client, 'stat');
  await sleep(WINDOW_MS);
  const s1 = await ask(server, 'stat');
  const c1 = await ask(client, 'stat');
  if (profile) {
    await ask(server, `profile-stop ${join(PROFILE_DIR!, `server-${profile}.cpuprofile`)}`);
    await ask(client, `profile-stop ${join(PROFILE_DIR!, `client-${profile}.cpuprofile`)}`);
  }
  client.send('pause');
  await sleep(1500); // replies in flight arrive
  if (profile) await ask(server, 'profile-start');
  const s2 = await ask(server, 'stat');
  const c2 = await ask(client, 'stat');
  await sleep(IDLE_WINDOW_MS);
  const s3 = await ask(server, 'stat');
  const c3 = await ask(client, 'stat');
  if (profile)
    await ask(server, `profile-stop ${join(PROFILE_DIR!, `server-${profile}-idle.cpuprofile`)}`);
  client.send('resume');
  const num = (m: Msg, k: string) => m[k] as number;
  const answered =
    num(c1, 'sent') - num(c0, 'sent') - (num(c1, 'unanswered') - num(c0, 'unanswered'));
  return {
    hbPerS: answered / (WINDOW_MS / 1000),
    errors: num(c3, 'errors'),
    server: side(cpuUs(s0, s1), cpuUs(s2, s3), answered),
    client: side(cpuUs(c0, c1), cpuUs(c2, c3), answered),
  };
}

interface Variant {
  label: string;
  server: string;
  client: string;
}

async function round(v: Variant, token: string, profile?: string): Promise<Round> {
  const label = v.label;
  const server = startChild('server-heartbeat-server.ts', [v.server]);
  const exited = (c: Child) => new Promise((r) => c.proc.once('exit', r));
  try {
    const { port } = (await server.read()) as { port: number };
    const url = `ws://127.0.0.1:${port}/socket/websocket`;
    const client = startChild('server-heartbeat-client.ts', [
      url,
      String(N),
      String(INTERVAL_MS),
      token,
      v.client,
    ]);
    try {
      const joined = (await client.read(JOIN_MS)) as { joined: number; errors: string[] };
      if (joined.errors.length) console.error(`${label}: join errors: ${joined.errors.join('; ')}`);
      await sleep(WARMUP_MS);
      return { label, joined: joined.joined, ...(await measure(server, client, profile)) };
    } finally {
      // The server goes first: its close leaves the TIME_WAITs on its own, per-round port.
      server.send('exit');
      await Promise.race([exited(server), atMost(ANSWER_MS)]);
      client.send('exit');
      await Promise.race([exited(client), atMost(ANSWER_MS)]);
      client.proc.kill('SIGKILL');
    }
  } finally {
    server.proc.kill('SIGKILL');
  }
}

const f1 = (x: number) => x.toFixed(1);

/** µs per heartbeat (user + system); the side whose code the rounds vary in bold. */
function cell(r: Round, which: 'server' | 'client'): string {
  const x = r[which];
  const total = which === VARIED ? `**${f1(x.usPerHb)}**` : f1(x.usPerHb);
  return `${total} (${f1(x.userUs)} + ${f1(x.systemUs)})`;
}

function printRounds(rows: Round[]): void {
  console.log(
    `| round | ${VARIED} code | joined | heartbeats/s | server µs/heartbeat (user + system) | server % of a core | server idle ms/s | client µs/heartbeat (user + system) | client % of a core | client idle ms/s | errors |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  rows.forEach((r, i) =>
    console.log(
      `| ${i + 1} | ${r.label} | ${r.joined} | ${r.hbPerS.toFixed(0)} | ${cell(r, 'server')} | ${f1(r.server.core)} | ${f1(r.server.idleMsPerS)} | ${cell(r, 'client')} | ${f1(r.client.core)} | ${f1(r.client.idleMsPerS)} | ${r.errors} |`,
    ),
  );
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function printComparison(rows: Round[]): void {
  const of = (l: string) => rows.filter((r) => r.label === l).map((r) => r[VARIED].usPerHb);
  const before = of('before');
  const after = of('after');
  if (!before.length || !after.length) return;
  const pairs = before
    .map((b, i) => (i < after.length ? after[i] / b : NaN))
    .filter(Number.isFinite);
  console.log(
    `\n${VARIED} µs per heartbeat: before ${before.map(f1).join(', ')} (median ${f1(median(before))}); ` +
      `after ${after.map(f1).join(', ')} (median ${f1(median(after))}); ` +
      `after ÷ before by round pair ${pairs.map((x) => x.toFixed(2)).join(', ')}, of medians ${(median(after) / median(before)).toFixed(2)}`,
  );
}

async function main(): Promise<void> {
  const token = await new SignJWT({ role: 'anon' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(DEV_JWT_SECRET));
  const self = resolve(here, '..');
  const before = COMPARE ?? COMPARE_CLIENT;
  const variants: Variant[] = before
    ? [
        {
          label: 'before',
          server: COMPARE ? resolve(before) : self,
          client: COMPARE_CLIENT ? resolve(before) : self,
        },
        { label: 'after', server: self, client: self },
      ]
    : [{ label: 'this', server: self, client: self }];
  console.log(
    `${N} connections, a heartbeat each every ${INTERVAL_MS} ms, ${WINDOW_MS / 1000} s window, ${ROUNDS} round(s) per ${VARIED} code`,
  );
  const rows: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? variants : [...variants].reverse();
    for (const v of order) rows.push(await round(v, token));
  }
  printRounds(rows);
  printComparison(rows);
  if (PROFILE_DIR) {
    mkdirSync(PROFILE_DIR, { recursive: true });
    const profiled: Round[] = [];
    for (const v of variants) profiled.push(await round(v, token, v.label));
    console.log('\nprofiled rounds (the profiler adds its own CPU):');
    printRounds(profiled);
    for (const { label } of variants) {
      printSummary(
        `server (${label})`,
        summariseProfile(join(PROFILE_DIR, `server-${label}.cpuprofile`)),
      );
      printSummary(
        `client (${label})`,
        summariseProfile(join(PROFILE_DIR, `client-${label}.cpuprofile`)),
      );
      const idle = join(PROFILE_DIR, `server-${label}-idle.cpuprofile`);
      printSummary(`server (${label}), heartbeats paused`, summariseProfile(idle, 10));
    }
  }
}

await main();
process.exit(0);
