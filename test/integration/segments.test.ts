/**
 * One run of two steps (30 then 45 connections) split into 3 segments (3 `rtcap run --segment
 * i/3` processes with one --start-at) against ONE built-in server (`rtcap serve`), merged by
 * `rtcap merge`: in both steps every connection joined, expected = received, each segment sent
 * its share (relay senders), and the merged step's totals are the sums of the shards'. The
 * same profile in one process expects the same counts. A missing shard and a shard of another
 * run are refused. Binary in dist/ (npm run build first). --start-at is as far ahead as three
 * rtcap processes take to start on this machine now (test/support/segment-start): a late segment
 * would miss the shared schedule (it says so) and its members the first sends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/result/result.js';
import { readShard } from '../../src/shard/read.js';
import { segmentStartAtMs } from '../support/segment-start.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGTERM');
});

function rtcap(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('exit', (code) => res({ code, stderr }));
  });
}

async function serve(): Promise<string> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--ready-json', '--no-database'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  children.push(child);
  const line = await new Promise<string>((res, rej) => {
    createInterface({ input: child.stdout! }).once('line', res);
    child.once('exit', (code) => rej(new Error(`rtcap serve exited (${code})`)));
  });
  return (JSON.parse(line) as { url: string }).url;
}

const dir = tempDir('rtcap-segments-');
const profile = join(dir, 'p.yaml');
writeFileSync(
  profile,
  [
    'name: segments-test',
    'scenario: broadcast-public',
    'target: { vsn: "2.0.0", auth: { jwt_secret: super-secret-jwt-token-with-at-least-32-characters-long } }',
    'load: { join_rate: 100, drain: 3s, steps: [ { connections: 30, send_rate: 5, duration: 2s }, { connections: 45, send_rate: 5, duration: 2s } ] }',
    'slo: { p95_ms: 2000 }',
    '',
  ].join('\n'),
);
/** `rtcap run` of the profile against `url` as segment `seg` ("i/N"), into `out` under the dir. */
function runSegment(url: string, seg: string, out: string, more: string[]) {
  const args = ['--url', url, '--segment', seg, ...more, '--out', join(dir, out), '--no-progress'];
  return rtcap(['run', profile, ...args]);
}
const read = (d: string) => JSON.parse(readFileSync(join(d, 'result.json'), 'utf8')) as RunResult;

const CONNECTIONS = [30, 45];

describe('3 segments merged', () => {
  it(
    'two steps: every connection joined, expected = received, step totals = sums of the shards; one process expects the same',
    { timeout: 180_000 },
    async () => {
      const url = await serve();
      const startAt = new Date(await segmentStartAtMs(3)).toISOString();
      const segs = await Promise.all(
        [0, 1, 2].map((i) => runSegment(url, `${i}/3`, `s${i}`, ['--start-at', startAt])),
      );
      for (const s of segs) {
        expect(s.stderr).not.toMatch(/aborted/);
        // Up and waiting before the shared start, as the lead allowed for.
        expect(s.stderr).toMatch(/waiting \d+\.\d s for --start-at/);
      }
      const m = await rtcap([
        'merge',
        join(dir, 's0'),
        join(dir, 's1'),
        join(dir, 's2'),
        '--out',
        join(dir, 'merged'),
      ]);
      expect(m.stderr).toContain('merged 3 shards');
      const merged = read(join(dir, 'merged'));
      expect(merged.segments?.count).toBe(3);
      expect(merged.steps.length).toBe(2);
      // Latency from same-machine receipts only; every receipt counted.
      expect(merged.segments?.clocks).toMatch(
        /only receipts whose sender ran on the receiver's machine/,
      );
      const shards = [0, 1, 2].map((i) => readShard(join(dir, `s${i}`, 'shard.json')));
      for (const [i, step] of merged.steps.entries()) {
        const n = CONNECTIONS[i];
        expect(step.connections.joined).toBe(n);
        expect(step.messages.expected).toBeGreaterThan(0);
        expect(step.messages.received).toBe(step.messages.expected);
        expect(step.delivery_rate).toBe(1);

        const parts = shards.flatMap((s) => s.steps[i].collected);
        const sum = (f: (c: (typeof parts)[number]) => number) =>
          parts.reduce((a, c) => a + f(c), 0);
        expect(step.messages.sent).toBe(sum((c) => c.sendStats.sent));
        expect(
          step.messages.received +
            step.messages.unexpected -
            sum((c) => c.receipts.unexpected + c.receipts.stale),
        ).toBe(sum((c) => c.receipts.received));
        expect(step.connections.scheduled_joins).toBe(sum((c) => c.connections.scheduledJoins));
        // Step 2 ramps from 30 to 45: its first joins are the 15 new connections, 5 per segment.
        expect(step.connections.first_joins).toBe(i === 0 ? n : n - CONNECTIONS[0]);
        expect(shards.map((s) => s.steps[i].collected[0].connections.scheduledJoins)).toEqual(
          i === 0 ? [10, 10, 10] : [5, 5, 5],
        );
        // Each segment sent its share of the 10 messages (relay senders, generator/segment:
        // seq mod 3).
        expect(shards.map((s) => s.steps[i].collected[0].sendStats.sent)).toEqual([4, 3, 3]);
        const scope = step.extra.latency_scope as {
          receipts_other_machine: number;
          receipts_same_machine: number;
          messages_only_elsewhere: number;
        };
        expect(scope.receipts_same_machine + scope.receipts_other_machine).toBe(
          sum((c) => c.receipts.received),
        );
        // A message's same-machine receivers: its segment's n / 3 members but the sender.
        expect(scope.receipts_same_machine).toBe(step.messages.sent * (n / 3 - 1));
        expect(scope.messages_only_elsewhere).toBe(0);
        expect(step.latency_ms.p95).not.toBeNull();
        expect(step.latency_ms.p95!).toBeLessThan(2000);
      }

      // The same profile in one process, and beside it a segment of another run (its shard is
      // refused below) on a topic of its own, so that neither receives the other's messages.
      const [one, other] = await Promise.all([
        rtcap(['run', profile, '--url', url, '--out', join(dir, 'one'), '--no-progress']),
        runSegment(url, '1/3', 'x1', [
          ...['--run-name', 'another', '--set', 'target.topic=realtime:another'],
          ...['--set', 'load.steps.0.duration=1s', '--set', 'load.steps.1.duration=1s'],
        ]),
      ]);
      expect(one.code).not.toBe(3);
      const single = read(join(dir, 'one'));
      expect(single.steps.map((x) => x.messages.expected)).toEqual(
        merged.steps.map((x) => x.messages.expected),
      );
      for (const x of single.steps) expect(x.delivery_rate).toBe(1);

      // A missing shard, and a shard of another run, are refused in one line (exit 2).
      const missing = await rtcap([
        'merge',
        join(dir, 's0'),
        join(dir, 's2'),
        '--out',
        join(dir, 'm2'),
      ]);
      expect(missing.code).toBe(2);
      expect(missing.stderr.trim()).toBe(
        'rtcap merge: missing segment 1 of 3 (run "' +
          new Date(startAt).toISOString() +
          '"): every segment\'s shard is needed for exact totals',
      );
      expect(other.code).not.toBe(2);
      const mixed = await rtcap([
        'merge',
        join(dir, 's0'),
        join(dir, 'x1'),
        join(dir, 's2'),
        '--out',
        join(dir, 'm3'),
      ]);
      expect(mixed.code).toBe(2);
      expect(mixed.stderr).toMatch(/x1\/shard\.json is of another (run|profile)/);
    },
  );
});
