/**
 * rtcap's first-receipt latency overhead beside a bare `ws` receiver, in the same run against
 * the same server: the known-answer test server writing every broadcast a fixed delay (25 ms)
 * after its push arrived, in a process of its own (bench/support/delay-server.ts), which keeps
 * its own first-write time of every message.
 *
 * Each round runs both receivers at the same time, each on its own topic with its own sender
 * at the same rate and connection count: `rtcap run` exactly as a user runs it (coordinator and
 * one generator process; bench/support/receipt-tap.mjs reads the receive time rtcap took of
 * each message's first receipt) and the bare receiver (bench/support/bare-first-receipt.ts),
 * told to start sending at the server's first write of rtcap's first message, so the two send
 * windows overlap. A receiver's overhead on a message is its first receipt (over all its
 * connections) minus the server's first write of that message: what the receiver adds after
 * the server wrote, the sender's lateness and the server's delay left out. Its p50/p95/p99 are
 * nearest-rank over the round's messages; the figure is the median over the rounds of each.
 * rtcap's own first-receipt percentiles (result.json, from the scheduled send time) and the
 * server's first write − scheduled send time are printed beside them.
 *
 * Clock: every time is taken with clock.nowMs (performance.timeOrigin + performance.now()) in
 * processes on this one machine, and compared on CLOCK_MONOTONIC: each process reports the
 * epoch time its nowMs gives to the monotonic clock's zero (bench/support/monotonic-origin), and
 * the bench subtracts it (the "clock origin − server" column; within ±0.05 ms so far, but one
 * early run that did not yet subtract it read receipts up to 1.9 ms *before* the server's
 * write for both receivers, which only a difference of clocks explains).
 *
 * Run: npx tsx bench/latency-overhead.ts [--rounds 5] [--connections 20] [--rate 50]
 *        [--duration 10] [--delay 25] [--dump messages.ndjson]
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { Percentiles } from '../src/result/result.js';
import { option } from './support/cli.js';
import { tempDir } from '../test/support/temp-dir.js';

const rounds = Number(option('rounds', '5'));
const connections = Number(option('connections', '20'));
const rate = Number(option('rate', '50'));
const durationS = Number(option('duration', '10'));
const delayMs = Number(option('delay', '25'));
/** Every message's times as NDJSON (round, receiver, id, t, first write, first receipt). */
const dumpPath = option('dump', null);
const root = resolve(import.meta.dirname, '..');
const RTCAP_TOPIC = 'realtime:rtcap';
const BARE_TOPIC = 'realtime:bare';
const KEYS = ['p50', 'p95', 'p99'] as const;
type Key = (typeof KEYS)[number];

type Msg = { type: string; [k: string]: unknown };
/** id → [first write, scheduled send time `t`], epoch ms. */
type Writes = Record<string, [number, number]>;
/** id → first receive time, epoch ms. */
type Receipts = Record<string, number>;

function forkTs(file: string, args: string[]): ChildProcess {
  return fork(join(root, file), args, { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
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

/** Nearest-rank percentiles of exact samples (negative ones kept: no clamping). */
function nearestRank(samples: number[]): Record<Key, number> & { count: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
  return { p50: at(50), p95: at(95), p99: at(99), count: s.length };
}

interface Measured {
  /** First receipt − first write, per message. */
  overhead: Record<Key, number> & { count: number };
  /** Messages written that this receiver never received. */
  missing: number;
  /** The server's first write − scheduled send time, per message. */
  serverFromSched: Record<Key, number> & { count: number };
}

const dumped: string[] = [];

/** A receiver's first receipts and its process's clock origin (bench/support/monotonic-origin). */
interface Received {
  receipts: Receipts;
  originMs: number;
}

/**
 * Per message: first receipt − the server's first write, each on CLOCK_MONOTONIC (its process's
 * origin subtracted), so a difference of the processes' nowMs origins never enters it.
 */
function measure(writes: Writes, got: Received, serverOriginMs: number): Measured {
  const shiftMs = got.originMs - serverOriginMs;
  const overhead: number[] = [];
  const fromSched: number[] = [];
  let missing = 0;
  for (const [id, [w, t]] of Object.entries(writes)) {
    fromSched.push(w - t);
    const r = got.receipts[id];
    if (r === undefined) missing++;
    else overhead.push(r - shiftMs - w);
  }
  return { overhead: nearestRank(overhead), missing, serverFromSched: nearestRank(fromSched) };
}

/** rtcap run on its own topic: its first receipts (the tap) and its own latency figure. */
async function runRtcap(url: string): Promise<Received & { latency: Percentiles }> {
  const dir = tempDir('rtcap-latency-');
  const profile = join(dir, 'profile.yaml');
  const step = `{ connections: ${connections}, send_rate: ${rate}, duration: ${durationS}s }`;
  writeFileSync(
    profile,
    [
      'name: latency-overhead',
      'scenario: broadcast-public',
      `target: { url: "${url}", vsn: "1.0.0", topic: "${RTCAP_TOPIC}" }`,
      `load: { join_rate: 500, workers: 1, drain: 5s, steps: [ ${step} ] }`,
      'slo: { p95_ms: 200 }',
      '',
    ].join('\n'),
  );
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
    const child = spawn(process.execPath, argv, {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err = (err + String(d)).slice(-2000)));
    child.on('exit', (code) => {
      if (code !== 0) process.stderr.write(`rtcap run exited ${code}: ${err}\n`);
      res();
    });
  });
  const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
    steps: Array<{ latency_ms: Percentiles }>;
  };
  const tapped = JSON.parse(readFileSync(tap, 'utf8')) as { originMs: number; first: Receipts };
  rmSync(dir, { recursive: true, force: true });
  return { receipts: tapped.first, originMs: tapped.originMs, latency: result.steps[0].latency_ms };
}

/** Every message's nowMs times as logged (no origin subtracted) and the receiver's origin. */
function dumpRound(roundNo: number, receiver: string, writes: Writes, got: Received): void {
  for (const [id, [w, t]] of Object.entries(writes)) {
    const r = got.receipts[id] ?? null;
    dumped.push(
      JSON.stringify({ round: roundNo, receiver, id: Number(id), t, w, r, originMs: got.originMs }),
    );
  }
}

interface Round {
  /** Receiver's clock origin − the server's (ms): rtcap's generator process, bare ws. */
  originShiftsMs: [number, number];
  rtcap: Measured;
  bare: Measured;
  /** rtcap's own first-receipt latency (result.json). */
  rtcapLatency: Percentiles;
}

async function round(server: ChildProcess, url: string, roundNo: number): Promise<Round> {
  const bare = forkTs('bench/support/bare-first-receipt.ts', [
    url,
    BARE_TOPIC,
    String(connections),
    String(rate),
    String(durationS),
  ]);
  await next(bare, 'joined');
  const bareResult = next(bare, 'result');
  const onWrite = (m: Msg) => {
    if (m.type !== 'firstWrite' || m.topic !== RTCAP_TOPIC) return;
    server.off('message', onWrite);
    bare.send({ type: 'go' });
  };
  server.on('message', onWrite);
  const [rt, b] = await Promise.all([runRtcap(url), bareResult]);
  server.send({ type: 'report' });
  const report = await next(server, 'report');
  const writes = report.writes as Record<string, Writes>;
  const serverOrigin = report.originMs as number;
  const bareGot = { receipts: b.first as Receipts, originMs: b.originMs as number };
  const rtcap = measure(writes[RTCAP_TOPIC] ?? {}, rt, serverOrigin);
  const bareWs = measure(writes[BARE_TOPIC] ?? {}, bareGot, serverOrigin);
  if (dumpPath) {
    dumped.push(JSON.stringify({ round: roundNo, serverOriginMs: serverOrigin }));
    dumpRound(roundNo, 'rtcap', writes[RTCAP_TOPIC] ?? {}, rt);
    dumpRound(roundNo, 'bare ws', writes[BARE_TOPIC] ?? {}, bareGot);
  }
  return {
    rtcap,
    bare: bareWs,
    rtcapLatency: rt.latency,
    originShiftsMs: [rt.originMs - serverOrigin, bareGot.originMs - serverOrigin],
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f3 = (x: number | null) => (x === null || Number.isNaN(x) ? '—' : x.toFixed(3));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

function printRound(i: number, r: Round): void {
  const row = (name: string, m: Measured, shiftMs: number, own: string) =>
    `| ${i + 1} | ${name} | ${m.overhead.count} (${m.missing} missing) | ` +
    `${KEYS.map((k) => f3(m.overhead[k])).join(' | ')} | ${f3(shiftMs)} | ` +
    `${KEYS.map((k) => f3(m.serverFromSched[k])).join(' / ')} | ${own} |\n`;
  const own = KEYS.map((k) => f3(r.rtcapLatency[k])).join(' / ');
  const [rtShift, bareShift] = r.originShiftsMs;
  process.stdout.write(row('rtcap', r.rtcap, rtShift, `${own} (${r.rtcapLatency.count})`));
  process.stdout.write(row('bare ws', r.bare, bareShift, '—'));
}

async function main(): Promise<void> {
  const server = forkTs('bench/support/delay-server.ts', [String(delayMs)]);
  const url = (await next(server, 'listening')).url as string;
  process.stdout.write(
    `latency overhead: ${rounds} rounds, ${connections} connections per receiver, ` +
      `${rate} msg/s for ${durationS} s, server delay ${delayMs} ms; ` +
      `${new Date().toISOString()}, load ${load()}\n\n` +
      '| round | receiver | messages | overhead p50 (ms) | p95 | p99 | clock origin − server |' +
      ' server write − sched p50/p95/p99 | rtcap result p50/p95/p99 (n) |\n' +
      '|---|---|---|---|---|---|---|---|---|\n',
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
  const med = (m: (r: Round) => Measured) =>
    KEYS.map((k) => median(all.map((r) => m(r).overhead[k])));
  const rt = med((r) => r.rtcap);
  const bare = med((r) => r.bare);
  process.stdout.write(
    `\nmedian over ${all.length} rounds of the overhead (first receipt − server's first ` +
      `write, ms), ended ${new Date().toISOString()}, load ${load()}:\n\n` +
      '| | p50 | p95 | p99 |\n|---|---|---|---|\n' +
      `| rtcap | ${rt.map(f3).join(' | ')} |\n` +
      `| bare ws | ${bare.map(f3).join(' | ')} |\n` +
      `| rtcap ÷ bare | ${rt.map((x, j) => (x / bare[j]).toFixed(2)).join(' | ')} |\n` +
      `| rtcap ≤ bare | ${rt.map((x, j) => (x <= bare[j] ? 'yes' : 'no')).join(' | ')} |\n`,
  );
}

await main();
