/**
 * A run split over three machines that are really separate network stacks: the known-answer
 * test server (every broadcast written 30 ms after its push) in one network namespace, each
 * segment in its own (own address on a bridge, own ephemeral port range, own open-file limit)
 * behind an emulated client link of 20 ms ± 2 ms each way (generator.link: netem where the kernel
 * has it, else the userspace relay), started with one --start-at, then merged. A 3 s warm-up
 * leaves room for the offsets and for joins that run late on a busy machine: a segment whose
 * clock is ahead sends early, and a message sent before another segment's members joined would be
 * expected there (by that segment's clock) and never received. Segment 1's clock is
 * set 700 ms ahead and segment 2's 400 ms behind (RTCAP_CLOCK_OFFSET_MS). Checked: every
 * connection joined and every message was delivered; the merged step's totals are the sums of
 * the shards exactly; latency stands on same-machine receipts only, so the offsets leave it
 * untouched, and equals the server's delay plus the link's two crossings within a stated
 * tolerance; the merge measures each segment's offset from the receipts and reports it; each
 * segment ran under its own limits; and no namespace is left behind.
 *
 * Needs root and `ip netns` (Linux); skipped otherwise, saying why. Binary in dist/ (npm run
 * build first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/result/result.js';
import type { LinkLatencyShare } from '../../src/figures/link-share.js';
import { readShard } from '../../src/shard/read.js';
import { NetnsTopology, SERVER_ADDRESS, netnsUnavailable } from '../support/netns.js';
import { segmentStartAtMs } from '../support/segment-start.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const SEGMENTS = 3;
const CONNECTIONS = 30;
/** Each segment's clock against the real one, ms. */
const OFFSETS_MS = [0, 700, -400];
const OPEN_FILES = 4096;
/** The known-answer server writes every broadcast this long after its push arrived. */
const SERVER_DELAY_MS = 30;
/** Each segment's emulated link (generator.link), one way, each direction. */
const LINK_DELAY_MS = 20;
const LINK_JITTER_MS = 2;
/**
 * Room above the known answer for three runs' processes and a server sharing a loaded 2-core
 * machine; below it only the jitter and 1 ms of timer rounding.
 */
const LATENCY_TOLERANCE_MS = 60;
const MAIN = resolve(import.meta.dirname, '../support/test-server-main.ts');

const unavailable = netnsUnavailable();
if (unavailable) console.warn(`netns-segments skipped: ${unavailable}`);

const children: ChildProcess[] = [];
let topology: NetnsTopology | null = null;
afterAll(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  topology?.destroy();
});

/**
 * The test server inside `argv`'s namespace on SERVER_ADDRESS; its URL comes over IPC (`ip netns
 * exec` execs node in place, so the channel's descriptor is inherited).
 */
function startServer(argv: [string, string[]]): {
  child: ChildProcess;
  url: Promise<string>;
  done: Promise<number | null>;
} {
  const opts = JSON.stringify({ delayMs: SERVER_DELAY_MS, host: SERVER_ADDRESS });
  const child = spawn(argv[0], [...argv[1], opts], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  const url = new Promise<string>((res, rej) => {
    child.on('message', (m: { type?: string; url?: string }) => {
      if (m?.type === 'ready') res(m.url!);
    });
    child.once('exit', (code) => rej(new Error(`test server exited (${code})`)));
  });
  const done = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { child, url, done };
}

/** The merged step's latency against the known answer: server delay + 2 × link delay. */
function expectLinkLatency(step: RunResult['steps'][number], merged: RunResult): void {
  expect(merged.steps.length).toBe(1);
  const share = 2 * LINK_DELAY_MS;
  const p50 = step.latency_ms.p50!;
  expect(p50).toBeGreaterThanOrEqual(SERVER_DELAY_MS + share - 2 * LINK_JITTER_MS - 1);
  expect(p50).toBeLessThan(SERVER_DELAY_MS + share + 2 * LINK_JITTER_MS + LATENCY_TOLERANCE_MS);
  const link = step.extra.link_latency as LinkLatencyShare;
  expect(link.link_share_ms).toBe(share);
  const server = link.server_latency_ms.p50!;
  expect(server).toBeGreaterThanOrEqual(SERVER_DELAY_MS - 2 * LINK_JITTER_MS - 1);
  expect(server).toBeLessThan(SERVER_DELAY_MS + 2 * LINK_JITTER_MS + LATENCY_TOLERANCE_MS);
}

function start(
  argv: [string, string[]],
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; done: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(argv[0], argv[1], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stderr: string }>((res) =>
    child.on('exit', (code) => res({ code, stderr })),
  );
  return { child, done };
}

const dir = tempDir('rtcap-netns-');
const profile = join(dir, 'p.yaml');
writeFileSync(
  profile,
  [
    'name: netns-segments',
    'scenario: broadcast-public',
    'target: { vsn: "2.0.0", auth: { jwt_secret: super-secret-jwt-token-with-at-least-32-characters-long } }',
    `load: { join_rate: 100, warmup: 3s, drain: 3s, steps: [ { connections: ${CONNECTIONS}, send_rate: 5, duration: 2s } ] }`,
    'slo: { p95_ms: 2000 }',
    `generator: { link: { delay: ${LINK_DELAY_MS}ms, jitter: ${LINK_JITTER_MS}ms } }`,
    '',
  ].join('\n'),
);
const read = (d: string) => JSON.parse(readFileSync(join(d, 'result.json'), 'utf8')) as RunResult;

describe.skipIf(unavailable !== null)(
  `3 segments in their own network namespaces${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    it(
      'merged = the union of the shards exactly; latency untouched by the clock offsets, which the merge measures and reports',
      { timeout: 240_000 },
      async () => {
        topology = NetnsTopology.create(SEGMENTS);
        const t = topology;
        // The known-answer server: every broadcast written SERVER_DELAY_MS after its push.
        const server = startServer(t.exec(t.server, [process.execPath, '--import', 'tsx', MAIN]));
        const url = await server.url;
        expect(url).toContain(`ws://${SERVER_ADDRESS}:`);

        // As far ahead as three rtcap processes take to start in their namespaces now (a few
        // seconds on a quiet machine, up to 15 s on a busy one).
        const startAt = new Date(
          await segmentStartAtMs(SEGMENTS, (argv) => t.exec(t.segments[0].ns, argv, OPEN_FILES)),
        ).toISOString();
        const segs = await Promise.all(
          t.segments.map((seg, i) => {
            const argv = [process.execPath, BIN, 'run', profile, '--url', url];
            argv.push('--segment', `${i}/${SEGMENTS}`, '--start-at', startAt);
            argv.push('--out', join(dir, `s${i}`), '--no-progress');
            return start(t.exec(seg.ns, argv, OPEN_FILES), {
              RTCAP_CLOCK_OFFSET_MS: String(OFFSETS_MS[i]),
            }).done;
          }),
        );
        for (const s of segs) {
          expect(s.stderr).not.toMatch(/aborted/);
          // Up and waiting before the shared start (by its own clock), as the lead allowed for.
          expect(s.stderr).toMatch(/waiting \d+\.\d s for --start-at/);
        }

        // Each segment ran on its own stack: its own port range and open-file limit.
        t.segments.forEach((seg, i) => {
          const r = read(join(dir, `s${i}`));
          expect(r.generator.limits.open_files_per_process).toBe(OPEN_FILES);
          expect(r.generator.limits.port_range).toBe(seg.portRange.replace(' ', '-'));
        });

        const m = await start([
          process.execPath,
          [BIN, 'merge', ...[0, 1, 2].map((i) => join(dir, `s${i}`)), '--out', join(dir, 'm')],
        ]).done;
        expect(m.stderr).toContain('merged 3 shards');
        const merged = read(join(dir, 'm'));
        const step = merged.steps[0];
        expect(step.connections.joined).toBe(CONNECTIONS);
        expect(step.messages.received).toBe(step.messages.expected);
        expect(step.delivery_rate).toBe(1);

        // The union of the shards, exactly.
        const shards = [0, 1, 2].map((i) => readShard(join(dir, `s${i}`, 'shard.json')));
        const parts = shards.flatMap((s) => s.steps[0].collected);
        const sum = (f: (c: (typeof parts)[number]) => number) =>
          parts.reduce((a, c) => a + f(c), 0);
        expect(step.messages.sent).toBe(sum((c) => c.sendStats.sent));
        expect(shards.map((s) => s.steps[0].collected[0].sendStats.sent)).toEqual([4, 3, 3]);
        expect(step.connections.scheduled_joins).toBe(sum((c) => c.connections.scheduledJoins));
        expect(
          step.messages.received +
            step.messages.unexpected -
            sum((c) => c.receipts.unexpected + c.receipts.stale),
        ).toBe(sum((c) => c.receipts.received));

        // Latency: same-machine receipts only (each message's sender segment's 9 other members).
        const scope = step.extra.latency_scope as {
          receipts_same_machine: number;
          receipts_other_machine: number;
        };
        expect(scope.receipts_same_machine).toBe(step.messages.sent * (CONNECTIONS / 3 - 1));
        expect(scope.receipts_other_machine).toBe(
          sum((c) => c.receipts.received) - scope.receipts_same_machine,
        );
        // A receipt timed across machines would read 700 ms high (segment 0's sends received on
        // segment 1) or 400 ms high (segment 2's received on segment 0): none is in the figures.
        expect(step.latency_ms.p50).not.toBeNull();
        expect(step.latency_ms.p99!).toBeLessThan(700);

        // The offsets, measured from the first receipts of the same 10 messages on two machines.
        const offsets = merged.segments!.clock_offsets!;
        expect(offsets.margin_ms).toBe(2000);
        expect(offsets.segments.map((s) => s.segment)).toEqual([1, 2]);
        offsets.segments.forEach((s) => {
          expect(s.messages).toBe(step.messages.sent);
          expect(Math.abs(s.offset_ms - OFFSETS_MS[s.segment])).toBeLessThan(150);
        });
        const summary = readFileSync(join(dir, 'm', 'summary.md'), 'utf8');
        expect(summary).toMatch(/clock offsets.*segment 1 \+[67]\d\d ms.*segment 2 −[34]\d\d ms/);

        // Latency: the server's delay plus the link's two crossings (the sender's uplink, the
        // receiver's downlink, each through its segment's relay), within LATENCY_TOLERANCE_MS.
        expectLinkLatency(step, merged);

        server.child.kill('SIGTERM');
        await server.done;
        t.destroy();
        expect(t.existing()).toEqual([]);
      },
    );
  },
);
