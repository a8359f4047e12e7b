/**
 * Known answers for frames rtcap cannot use. A test server writes, to every member right after
 * its join, frames whose counts the test knows; `rtcap run` (the built CLI, two generator
 * processes, so the counts are merged over processes) must count each exactly, under
 * steps[].frames, note them in summary.md, and leave the measured broadcasts untouched.
 *
 * Run 1: broadcasts with a null payload (bare, and a Supabase envelope's), frames of an event
 * rtcap does not handle, broadcasts without a stamp — one of them 50 MB, under the client's
 * limit, so read and counted like the rest. Nothing the server failed to do: the step is stable.
 *
 * Run 2: frames that are not JSON or not an array of 5, and one message of the client's limit
 * (client/socket-open MAX_PAYLOAD_BYTES, 100 MiB) plus one byte: the smallest message over it,
 * since a 50 MB one is within it. ws refuses it with 1009 and closes that connection; the close is
 * "frame too large (1009)", never "closed by server" nor a dropped connection. Malformed frames
 * and the refusal are protocol errors and the lost member a disconnect: the step is broken.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_PAYLOAD_BYTES } from '../../src/client/socket-open.js';
import { EV, VSN_2 } from '../../src/protocol/constants.js';
import { encodeFrame } from '../../src/protocol/frame.js';
import type { RunResult } from '../../src/result/result.js';
import {
  startTestServer,
  type JoinedMember,
  type TestServer,
} from '../support/phoenix-test-server.js';
import { rtcapProcess } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-frames-');
let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Connections; connection 0 sends every broadcast (broadcast-public), the others receive. */
const N = 10;
/** Broadcasts sent: 10 a second over the 2 s steady window. */
const SENT = 20;

function profile(name: string, url: string): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(
    path,
    [
      `name: ${name}`,
      'scenario: broadcast-public',
      `target: { url: "${url}", vsn: "${VSN_2}" }`,
      'load:',
      '  join_rate: 100',
      '  workers: 2',
      '  drain: 2s',
      `  steps: [ { connections: ${N}, send_rate: 10, duration: 2s } ]`,
      // The test is about counts; a loaded 2-core machine's scheduling is not its subject.
      'slo: { p95_ms: 5000 }',
      'generator: { max_event_loop_lag_p99_ms: 2000, max_cpu_pct: 100, min_offered_ratio: 0.9 }',
      '',
    ].join('\n'),
  );
  return path;
}

async function run(name: string): Promise<{ code: number | null; result: RunResult; md: string }> {
  const out = join(work, name);
  const r = await rtcapProcess(['run', profile(name, server!.url), '--out', out, '--no-progress']);
  const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
  expect(result.status, r.stderr).toBe('completed');
  return { code: r.code, result, md: readFileSync(join(out, 'summary.md'), 'utf8') };
}

/** A v2 frame from the server on the member's topic. */
const frame = (m: JoinedMember, event: string, payload: unknown) =>
  encodeFrame({ joinRef: null, ref: null, topic: m.topic, event, payload }, m.vsn, 'server');

describe('frames rtcap cannot use, counted exactly', () => {
  it('null payloads, unknown events and unstamped broadcasts (one of 50 MB): counted, the step stable', async () => {
    const NULL_PAYLOAD = 3;
    const UNKNOWN = 2;
    const NO_STAMP = 1;
    let big = 0;
    server = await startTestServer({
      onJoin: (m) => {
        m.send(frame(m, EV.broadcast, null));
        m.send(frame(m, EV.broadcast, null));
        m.send(frame(m, EV.broadcast, { type: 'broadcast', event: 'bench', payload: null }));
        m.send(frame(m, 'rtcap_test_unknown', { a: 1 }));
        m.send(frame(m, 'rtcap_test_unknown', {}));
        m.send(frame(m, EV.broadcast, { type: 'broadcast', event: 'bench', payload: { x: 1 } }));
        if (m.index !== N - 1) return;
        const blob = 'y'.repeat(50 * 1000 * 1000);
        const payload = { type: 'broadcast', event: 'bench', payload: { blob } };
        const f = frame(m, EV.broadcast, payload);
        big = Buffer.byteLength(f);
        m.send(f);
      },
    });
    const { code, result, md } = await run('unrecognised');
    expect(code).toBe(0);
    expect(big).toBeGreaterThan(50_000_000);
    expect(big).toBeLessThan(MAX_PAYLOAD_BYTES);
    const s = result.steps[0];
    expect(s.connections.joined).toBe(N);
    expect(s.frames).toEqual({
      unrecognised: {
        null_payload: NULL_PAYLOAD * N,
        no_stamp: NO_STAMP * N + 1,
        unknown_event: UNKNOWN * N,
      },
      malformed: 0,
      oversized: 0,
    });
    // The measured broadcasts are untouched by them.
    expect(s.messages.sent).toBe(SENT);
    expect(s.messages.expected).toBe(SENT * (N - 1));
    expect(s.messages.received).toBe(s.messages.expected);
    expect(s.messages.lost).toBe(0);
    expect(s.messages.unexpected).toBe(0);
    expect(s.errors).toEqual({});
    expect(s.verdict, s.verdict_reasons.join('; ')).toBe('stable');
    const total = (NULL_PAYLOAD + NO_STAMP + UNKNOWN) * N + 1;
    expect(md).toContain(
      `Step 1: ${total} frames rtcap could not use — ${NULL_PAYLOAD * N} with a null payload, ${NO_STAMP * N + 1} without rtcap's stamp, ${UNKNOWN * N} of an event rtcap does not handle; counted in result.json (frames), never as deliveries.`,
    );
  }, 300_000);

  it('malformed frames and one message over the limit: counted, the close is "frame too large (1009)", the step broken', async () => {
    const MALFORMED = 4;
    let oversizedSent = 0;
    server = await startTestServer({
      onJoin: (m) => {
        m.send('this is not a phoenix frame {');
        m.send('<html>502 Bad Gateway</html>');
        m.send('');
        m.send(`[null,null,"${m.topic}"]`);
        if (m.index !== N - 1) return;
        oversizedSent++;
        m.send(Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x20));
      },
    });
    const { code, result, md } = await run('malformed');
    expect(code).toBe(0);
    expect(oversizedSent).toBe(1);
    const s = result.steps[0];
    expect(s.frames).toEqual({
      unrecognised: { null_payload: 0, no_stamp: 0, unknown_event: 0 },
      malformed: MALFORMED * N,
      oversized: 1,
    });
    const tooLarge = `frame too large (1009): a message over the client's limit of ${MAX_PAYLOAD_BYTES.toLocaleString('en-US')} bytes was refused and the connection closed`;
    expect(s.errors[tooLarge]).toBe(1);
    expect(s.error_classes).toEqual({
      server: 0,
      network: 0,
      generator: 0,
      protocol: MALFORMED * N + 1,
    });
    // The refused message's connection is the one member lost, and its close is named once.
    expect(
      Object.keys(s.errors).filter((r) => /closed by server|1006|socket error/.test(r)),
    ).toEqual([]);
    expect(s.connections.disconnected).toBe(1);
    expect(s.messages.sent).toBe(SENT);
    expect(s.messages.received).toBe(s.messages.expected);
    expect(s.messages.lost).toBe(0);
    expect(s.verdict).toBe('broken');
    expect(s.verdict_reasons).toContain('1 connections disconnected');
    expect(s.verdict_reasons).toContain(`${MALFORMED * N + 1} protocol-class errors`);
    expect(md).toContain(
      `Step 1: ${MALFORMED * N + 1} frames rtcap could not use — ${MALFORMED * N} not Phoenix frames (malformed: protocol errors), 1 over the client's size limit (refused with 1009: the connection closed); counted in result.json (frames), never as deliveries.`,
    );
  }, 300_000);
});
