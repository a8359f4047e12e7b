/**
 * rtcap's first-receipt latency overhead beside a bare `ws` receiver, in the same run against
 * the same server: the known-answer test server writing every broadcast a fixed delay (25 ms)
 * after its push arrived, in a process of its own (bench/support/delay-server.ts), which keeps
 * its own first-write time of every message.
 *
 * Each round runs both receivers at the same time, each on its own topic with its own sender
 * at the same rate, payload size and connection count (one sender and CONNECTIONS − 1
 * receivers each): `rtcap run` exactly as a user runs it (coordinator and one generator
 * process; bench/support/receipt-tap.mjs reads the receive time rtcap took of each message's
 * first receipt) and the bare receiver (bench/support/bare-first-receipt.ts). The two send
 * schedules interleave: the bare sender's first send is placed so that the server's writes of
 * its messages fall halfway between its writes of rtcap's, so neither receiver's wake-up is
 * the other's competition. Every process of the round (server, bare receiver, rtcap's
 * coordinator and generator) is set to the same niceness (the highest among them) once rtcap's
 * generator is up, and each receiver's niceness at the end is printed.
 *
 * A receiver's overhead on a message is its first receipt (over all its connections) minus the
 * server's first write of that message: what the receiver adds after the server wrote, the
 * sender's lateness and the server's delay left out. Percentiles are nearest-rank over every
 * message of every round pooled (the per-round ones are printed too), with each side's sample
 * count. Noise: a paired block bootstrap (bench/support/overhead-stats.ts) of rtcap − bare at
 * each percentile, blocks being one second of one round; a difference whose 95 % interval
 * reaches 0 is within this machine's noise.
 *
 * Clock: every time is taken with clock.nowMs (performance.timeOrigin + performance.now()) in
 * processes on this one machine, and compared on CLOCK_MONOTONIC: each process reports the
 * epoch time its nowMs gives to the monotonic clock's zero (bench/support/monotonic-origin),
 * and the bench subtracts it (the "clock origin − server" column).
 *
 * Diagnostics: --dump writes every message's times (with rtcap's per-second report times when
 * RTCAP_TAP_SECONDS=1, see receipt-tap.mjs); RTCAP_WORKER_EXEC_ARGV adds flags to rtcap's
 * generator process (e.g. --trace-gc, whose lines go to --rtcap-log) and BENCH_CHILD_EXEC_ARGV
 * to the server's and the bare receiver's.
 *
 * Run: npx tsx bench/latency-overhead.ts [--rounds 5] [--connections 20] [--rate 50]
 *        [--duration 10] [--delay 25] [--payload 64] [--dump messages.ndjson]
 *        [--rtcap-log rtcap-stdout.txt]
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, loadavg, setPriority } from 'node:os';
import { join, resolve } from 'node:path';
import type { Percentiles } from '../src/result/result.js';
import { option } from './support/cli.js';
import { monotonicOriginMs } from './support/monotonic-origin.js';
import {
  KEYS,
  nearestRank,
  pairedDifference,
  verdict,
  type Block,
  type Ranked,
} from './support/overhead-stats.js';
import { tempDir } from '../test/support/temp-dir.js';

const rounds = Number(option('rounds', '5'));
const connections = Number(option('connections', '20'));
const rate = Number(option('rate', '50'));
const durationS = Number(option('duration', '10'));
const delayMs = Number(option('delay', '25'));
const payloadBytes = Number(option('payload', '64'));
/** Every message's times as NDJSON (round, receiver, id, t, first write, first receipt). */
const dumpPath = option('dump', null);
/** rtcap's stdout (and its generator process's, e.g. with RTCAP_WORKER_EXEC_ARGV=--trace-gc). */
const rtcapLog = option('rtcap-log', null);
const root = resolve(import.meta.dirname, '..');
const RTCAP_TOPIC = 'realtime:rtcap';
const BARE_TOPIC = 'realtime:bare';
const periodMs = 1000 / rate;

type Msg = { type: string; [k: string]: unknown };
/** id → [first write, scheduled send time `t`], epoch ms. */
type Writes = Record<string, [number, number]>;
/** id → first receive time, epoch ms. */
type Receipts = Record<string, number>;

function forkTs(file: string, args: string[]): ChildProcess {
  const extra = process.env.BENCH_CHILD_EXEC_ARGV?.split(' ').filter(Boolean) ?? [];
  return fork(join(root, file), args, {
    execArgv: [...extra, '--import', 'tsx'],
    stdio: 'inherit',
  });
}

function next(child: ChildProcess, type: string): Promise<Msg> {
  return new Promise((res, rej) => {
    const onMsg = (m: Msg) => {
      if (m.type !== type) return;
      child.off('message', onMsg);
      res(m);
    };
    child.on('message', onMsg);
    child.once('exit', (c) => rej(new Error(`child exited ${c} before '${type}'`)));
  });
}

/** A receiver's first receipts, its process's clock origin, niceness and CPU. */
interface Received {
  receipts: Receipts;
  originMs: number;
  nice: number;
  cpuMs: number;
  /** The process's performance.timeOrigin (epoch ms; rtcap's generator only). */
  timeOriginMs?: number;
}

/** Per message, in the server's monotonic time: its first write and the overhead (or none). */
type Overheads = Array<{ writeMonoMs: number; overheadMs: number | null }>;

/**
 * Per message: first receipt − the server's first write, each on CLOCK_MONOTONIC (its process's
 * origin subtracted), so a difference of the processes' nowMs origins never enters it.
 */
function overheadsOf(writes: Writes, got: Received, serverOriginMs: number): Overheads {
  const shiftMs = got.originMs - serverOriginMs;
  return Object.entries(writes).map(([id, [w]]) => {
    const r = got.receipts[id];
    return {
      writeMonoMs: w - serverOriginMs,
      overheadMs: r === undefined ? null : r - shiftMs - w,
    };
  });
}

/** The pids of `pid`'s children (Linux /proc). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Sets every pid to the highest niceness among them (raising only); returns that niceness. */
function equalNiceness(pids: number[]): number {
  const nices = pids.map((p) => getPriority(p));
  const top = Math.max(...nices);
  for (const p of pids) if (getPriority(p) !== top) setPriority(p, top);
  return top;
}

function profileYaml(url: string): string {
  const step = `{ connections: ${connections}, send_rate: ${rate}, duration: ${durationS}s }`;
  return [
    'name: latency-overhead',
    'scenario: broadcast-public',
    `target: { url: "${url}", vsn: "1.0.0", topic: "${RTCAP_TOPIC}" }`,
    `load: { join_rate: 500, workers: 1, drain: 5s, payload_bytes: ${payloadBytes}, ` +
      `steps: [ ${step} ] }`,
    'slo: { p95_ms: 200 }',
    '',
  ].join('\n');
}

/** rtcap run on its own topic: its first receipts (the tap) and its own latency figure. */
async function runRtcap(
  url: string,
  onStart: (pid: number) => void,
): Promise<Received & { latency: Percentiles }> {
  const dir = tempDir('rtcap-latency-');
  const profile = join(dir, 'profile.yaml');
  writeFileSync(profile, profileYaml(url));
  const out = join(dir, 'out');
  const tap = join(dir, 'receipts.json');
  await new Promise<void>((res) => {
    const argv = ['bin/rtcap.js', 'run', profile, '--out', out, '--no-progress'];
    const env = {
      ...process.env,
      // The caller's flags first (e.g. --cpu-prof to profile the generator process).
      RTCAP_WORKER_EXEC_ARGV: `${process.env.RTCAP_WORKER_EXEC_ARGV ?? ''} --import ${join(root, 'bench/support/receipt-tap.mjs')}`,
      RTCAP_RECEIPT_TAP: tap,
    };
    const stdout = rtcapLog === null ? 'ignore' : openSync(rtcapLog, 'a');
    const child = spawn(process.execPath, argv, {
      cwd: root,
      env,
      stdio: ['ignore', stdout, 'pipe'],
    });
    onStart(child.pid!);
    let err = '';
    child.stderr!.on('data', (d) => (err = (err + String(d)).slice(-2000)));
    child.on('exit', (code) => {
      if (code !== 0) process.stderr.write(`rtcap run exited ${code}: ${err}\n`);
      res();
    });
  });
  const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
    steps: Array<{ latency_ms: Percentiles }>;
  };
  const tapped = JSON.parse(readFileSync(tap, 'utf8')) as Received & { first: Receipts };
  rmSync(dir, { recursive: true, force: true });
  return { ...tapped, receipts: tapped.first, latency: result.steps[0].latency_ms };
}

interface Round {
  rtcap: Overheads;
  bare: Overheads;
  /** Receiver's clock origin − the server's (ms): rtcap's generator process, bare ws. */
  originShiftsMs: [number, number];
  /** Each receiver's niceness at its end, and the one every process was set to. */
  nice: { rtcap: number; bare: number; set: number };
  /** Each receiver process's CPU (ms) over its sends and drain. */
  cpuMs: { rtcap: number; bare: number };
  /** rtcap's own first-receipt latency (result.json). */
  rtcapLatency: Percentiles;
}

/**
 * The bare sender's first send on CLOCK_MONOTONIC: its writes then fall halfway between the
 * server's writes of rtcap's messages (rtcap's first write at `firstWriteMonoMs`), at least
 * 20 ms from now so the go message arrives in time.
 */
function bareStartMonoMs(firstWriteMonoMs: number): number {
  const nowMono = Number(process.hrtime.bigint()) / 1e6;
  let start = firstWriteMonoMs + periodMs / 2 - delayMs;
  while (start < nowMono + 20) start += periodMs;
  return start;
}

async function round(server: ChildProcess, url: string, roundNo: number): Promise<Round> {
  const args = [url, BARE_TOPIC, connections, rate, durationS, payloadBytes].map(String);
  const bare = forkTs('bench/support/bare-first-receipt.ts', args);
  await next(bare, 'joined');
  const bareResult = next(bare, 'result');
  let coordinatorPid = 0;
  let setNice = NaN;
  const onWrite = (m: Msg) => {
    if (m.type !== 'firstWrite' || m.topic !== RTCAP_TOPIC) return;
    server.off('message', onWrite);
    bare.send({ type: 'go', startMonoMs: bareStartMonoMs(m.monoMs as number) });
    const pids = [server.pid!, bare.pid!, coordinatorPid, ...childrenOf(coordinatorPid)];
    setNice = equalNiceness(pids);
  };
  server.on('message', onWrite);
  const [rt, b] = await Promise.all([runRtcap(url, (pid) => (coordinatorPid = pid)), bareResult]);
  server.send({ type: 'report' });
  const report = await next(server, 'report');
  const writes = report.writes as Record<string, Writes>;
  const serverOrigin = report.originMs as number;
  const bareGot = b as unknown as Received & { first: Receipts };
  bareGot.receipts = bareGot.first;
  if (dumpPath) dumpRound(roundNo, writes, serverOrigin, rt, bareGot);
  return {
    rtcap: overheadsOf(writes[RTCAP_TOPIC] ?? {}, rt, serverOrigin),
    bare: overheadsOf(writes[BARE_TOPIC] ?? {}, bareGot, serverOrigin),
    originShiftsMs: [rt.originMs - serverOrigin, bareGot.originMs - serverOrigin],
    nice: { rtcap: rt.nice, bare: bareGot.nice, set: setNice },
    cpuMs: { rtcap: rt.cpuMs, bare: bareGot.cpuMs },
    rtcapLatency: rt.latency,
  };
}

const dumped: string[] = [];

/** Every message's nowMs times as logged (no origin subtracted) and the receiver's origin. */
function dumpRound(
  roundNo: number,
  writes: Record<string, Writes>,
  serverOriginMs: number,
  rt: Received,
  bare: Received,
): void {
  dumped.push(
    JSON.stringify({
      round: roundNo,
      serverOriginMs,
      rtcapTimeOriginMs: rt.timeOriginMs,
      seconds: (rt as { seconds?: unknown }).seconds,
    }),
  );
  const sides: Array<[string, string, Received]> = [
    ['rtcap', RTCAP_TOPIC, rt],
    ['bare ws', BARE_TOPIC, bare],
  ];
  for (const [receiver, topic, got] of sides)
    for (const [id, [w, t]] of Object.entries(writes[topic] ?? {})) {
      const r = got.receipts[id] ?? null;
      const line = { round: roundNo, receiver, id: Number(id), t, w, r, originMs: got.originMs };
      dumped.push(JSON.stringify(line));
    }
}

const received = (o: Overheads) => o.flatMap((m) => (m.overheadMs === null ? [] : [m.overheadMs]));
const missing = (o: Overheads) => o.filter((m) => m.overheadMs === null).length;

/** One block per second of each round, by the server's write time, both receivers together. */
function blocksOf(all: Round[]): Block[] {
  const blocks: Block[] = [];
  for (const r of all) {
    const start = Math.min(
      ...r.rtcap.map((m) => m.writeMonoMs),
      ...r.bare.map((m) => m.writeMonoMs),
    );
    const byS = new Map<number, Block>();
    const add = (o: Overheads, side: keyof Block) => {
      for (const m of o) {
        if (m.overheadMs === null) continue;
        const s = Math.floor((m.writeMonoMs - start) / 1000);
        let b = byS.get(s);
        if (!b) byS.set(s, (b = { rtcap: [], bare: [] }));
        b[side].push(m.overheadMs);
      }
    };
    add(r.rtcap, 'rtcap');
    add(r.bare, 'bare');
    blocks.push(...byS.values());
  }
  return blocks;
}

const f3 = (x: number | null) => (x === null || Number.isNaN(x) ? '—' : x.toFixed(3));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const pcts = (m: Ranked) => KEYS.map((k) => f3(m[k])).join(' | ');

function printRound(i: number, r: Round): void {
  const own = `${KEYS.map((k) => f3(r.rtcapLatency[k])).join(' / ')} (${r.rtcapLatency.count})`;
  const row = (name: string, o: Overheads, shiftMs: number, nice: number, cpu: number, x: string) =>
    `| ${i + 1} | ${name} | ${received(o).length} (${missing(o)} missing) | ` +
    `${pcts(nearestRank(received(o)))} | ${f3(shiftMs)} | ${nice} | ${cpu.toFixed(0)} | ${x} |\n`;
  const [rtShift, bareShift] = r.originShiftsMs;
  process.stdout.write(row('rtcap', r.rtcap, rtShift, r.nice.rtcap, r.cpuMs.rtcap, own));
  process.stdout.write(row('bare ws', r.bare, bareShift, r.nice.bare, r.cpuMs.bare, '—'));
}

function printPooled(all: Round[]): void {
  const rt = nearestRank(all.flatMap((r) => received(r.rtcap)));
  const bare = nearestRank(all.flatMap((r) => received(r.bare)));
  const blocks = blocksOf(all);
  const d = pairedDifference(blocks);
  const ms = (k: (typeof KEYS)[number]) => `${f3(d[k].diff)} [${f3(d[k].low)}, ${f3(d[k].high)}]`;
  process.stdout.write(
    `\nall ${all.length} rounds pooled (first receipt − server's first write, ms), ended ` +
      `${new Date().toISOString()}, load ${load()}:\n\n` +
      '| | samples | p50 | p95 | p99 |\n|---|---|---|---|---|\n' +
      `| rtcap | ${rt.count} | ${pcts(rt)} |\n` +
      `| bare ws | ${bare.count} | ${pcts(bare)} |\n` +
      `| rtcap ÷ bare | | ${KEYS.map((k) => (rt[k] / bare[k]).toFixed(2)).join(' | ')} |\n` +
      `| rtcap − bare [95 % interval, ${blocks.length} one-second blocks] | | ` +
      `${KEYS.map(ms).join(' | ')} |\n` +
      `| rtcap vs bare | | ${KEYS.map((k) => verdict(d[k])).join(' | ')} |\n`,
  );
}

async function main(): Promise<void> {
  const server = forkTs('bench/support/delay-server.ts', [String(delayMs)]);
  const url = (await next(server, 'listening')).url as string;
  process.stdout.write(
    `latency overhead: ${rounds} rounds, ${connections} connections per receiver ` +
      `(1 sender, ${connections - 1} receivers), ${rate} msg/s of ${payloadBytes} B for ` +
      `${durationS} s, server delay ${delayMs} ms; ${new Date().toISOString()}, load ${load()}, ` +
      `bench nice ${getPriority()}, origin ${f3(monotonicOriginMs())}\n\n` +
      '| round | receiver | messages | overhead p50 (ms) | p95 | p99 | clock origin − server |' +
      ' nice | CPU ms | rtcap result p50/p95/p99 (n) |\n' +
      '|---|---|---|---|---|---|---|---|---|---|\n',
  );
  const all: Round[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const r = await round(server, url, i + 1);
      all.push(r);
      printRound(i, r);
    }
  } finally {
    server.send({ type: 'stop' });
    if (dumpPath) writeFileSync(dumpPath, dumped.join('\n') + '\n');
  }
  printPooled(all);
}

await main();
