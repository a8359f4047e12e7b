/**
 * Known answer: a server that closes a sender with 1011 at its first binary broadcast push, the
 * push not delivered (Supabase Realtime v2.28 under vsn 2.0.0 cannot decode binary pushes). The
 * run must go on to its last step with that connection counted as gone, never crash a generator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '../../src/run/runner.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('a sender the server closes at its first binary push', () => {
  it('runs every step to the end; nothing sent, nothing delivered, the close counted once', async () => {
    server = await startTestServer({ closeOnBinaryPush: 1011 });
    const profile = profileFrom({
      name: 'ka-closed-sender',
      scenario: 'broadcast-public',
      target: { url: server.url, vsn: '2.0.0', dialect: 'supabase' },
      load: {
        join_rate: 200,
        steps: [
          { connections: 10, send_rate: 10, duration: '1s' },
          { connections: 20, send_rate: 10, duration: '1s' },
          { connections: 20, send_rate: 10, duration: '1s' },
        ],
        drain: '1s',
      },
    });
    const { result, exitCode } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: tempDir('rtcap-ka-closed-'),
      log: () => undefined,
    });
    expect(result.abort_reason ?? null).toBeNull();
    expect(exitCode).toBe(0);
    expect(result.steps).toHaveLength(3);
    // What the server did: one sender closed, at its one push, nothing delivered.
    expect(server.stats.closedOnBinaryPush).toBe(1);
    expect(server.stats.deliveries).toBe(0);
    const [one, two, three] = result.steps;
    // Step 1: the push was written and reached its 9 receivers never; the sender's 9 later sends
    // found it gone. Its own drop explains none of the receivers' misses.
    expect(one.connections).toMatchObject({ target: 10, joined: 10, failed: 0, disconnected: 1 });
    expect(one.messages).toMatchObject({
      scheduled: 10,
      sent: 1,
      not_sent_connection_down: 9,
      expected: 9,
      received: 0,
      lost: 9,
    });
    expect(one.messages.not_delivered_connection_down ?? 0).toBe(0);
    expect(one.errors).toEqual({
      'closed by server: 1011 cannot decode a binary push right after its first binary broadcast push': 1,
    });
    expect(one.verdict).toBe('broken');
    expect(one.verdict_reasons[0]).toBe(
      'the server closed a sender right after its first binary broadcast push (it cannot read binary frames): set target.binary_broadcast: false or target.vsn: "1.0.0"',
    );
    // Steps 2 and 3 (where the generator crashed before): the sender stays gone, every send is
    // counted not made, and 19 of 20 are members.
    for (const s of [two, three]) {
      expect(s.connections).toMatchObject({ target: 20, joined: 19, disconnected: 0 });
      expect(s.messages).toMatchObject({ scheduled: 10, sent: 0, not_sent_connection_down: 10 });
      expect(s.messages).toMatchObject({ expected: 0, received: 0, lost: 0 });
      expect(s.verdict).toBe('broken');
    }
  });
});
