/**
 * Known answer for `rtcap init --kind phoenix`'s probe: a push on the profile's topic must reach
 * another member, as the run needs. A Phoenix-protocol server that relays pushes to the topic's
 * other members (as broadcast_from! does) gets a profile, its probe one push delivered once; one
 * that joins but relays nothing is named in one line (exit 3) and nothing is written; one that
 * relays as an event of its own gets that event as target.receive_event (a run counts only
 * frames of that event), and the profile's run delivers every message.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import type { RunResult } from '../../src/result/result.js';
import { expectOneLine, smallSteps } from '../support/init-cli.js';
import { rtcapCli } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function initPhoenix(s: TestServer) {
  const dir = tempDir('rtcap-init-phoenix-');
  const out = join(dir, 'rtcap.yaml');
  const url = `ws://127.0.0.1:${s.port}/socket/websocket`;
  const r = await rtcapCli([
    'init',
    url,
    '--kind',
    'phoenix',
    '--topic',
    'room:bench',
    '--out',
    out,
  ]);
  return { r, out };
}

describe('rtcap init --kind phoenix probes that a push reaches another member', () => {
  it('a server that relays pushes: one push, delivered once, and vsn 2.0.0 written', async () => {
    server = await startTestServer({ topicPrefix: 'room:' });
    const { r, out } = await initPhoenix(server);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(
      /^probed .*: a "broadcast" push on room:bench reached another member under vsn 2\.0\.0 JSON text frames in \d+ ms: wrote vsn 2\.0\.0$/,
    );
    // The probe's two members: the push went to the other one only (broadcast_from).
    expect(server.stats).toMatchObject({ joins: 2, pushes: 1, deliveries: 1, dropped: 0 });
    const yaml = readFileSync(out, 'utf8');
    expect(yaml).toMatch(/^ {2}vsn: "2\.0\.0"$/m);
    expect(yaml).toContain('dialect: phoenix');
  }, 60_000);

  it('a server that joins but relays nothing: one line naming the relay, exit 3, nothing written', async () => {
    server = await startTestServer({ topicPrefix: 'room:', dropShare: 1 });
    const { r, out } = await initPhoenix(server);
    expectOneLine(r, 3, 'joined room:bench, but a "broadcast" push by one member reached no other');
    expect(r.stderr).toContain('vsn 2.0.0 JSON text frames: nothing arrived within 2000 ms');
    expect(r.stderr).toContain('vsn 1.0.0 (JSON objects): nothing arrived within 2000 ms');
    expect(r.stderr).toContain('broadcast_from!');
    // One push per encoding tried, each dropped for its one other member.
    expect(server.stats).toMatchObject({ pushes: 2, deliveries: 0, dropped: 2 });
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('a server that relays as an event of its own: that event written as receive_event, and the run delivers', async () => {
    server = await startTestServer({ topicPrefix: 'room:', fanoutEvent: 'new_msg' });
    const { r, out } = await initPhoenix(server);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(
      /reached another member as "new_msg" under vsn 2\.0\.0 JSON text frames in \d+ ms: wrote vsn 2\.0\.0, receive_event: new_msg$/,
    );
    expect(server.stats).toMatchObject({ pushes: 1, deliveries: 1 });
    expect(readFileSync(out, 'utf8')).toMatch(/^ {2}receive_event: "new_msg" /m);
    const runDir = join(dirname(out), 'run');
    const run = await rtcapCli([
      'run',
      out,
      '--out',
      runDir,
      '--no-progress',
      ...smallSteps([10, 20, 20]),
    ]);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as RunResult;
    for (const s of result.steps) {
      expect(s.messages.expected).toBeGreaterThan(0);
      expect(s.messages.received, `step ${s.index}`).toBe(s.messages.expected);
    }
  }, 180_000);
});
