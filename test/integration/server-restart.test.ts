/**
 * A server killed with SIGKILL mid-step and started again on the same port at once, with
 * load.reconnect: the run rides it out (no abort), the connections reconnect and join again,
 * the gap is reported (how long, how many reconnected), and the messages the outage cost are
 * counted apart — not sent while the sender was down, not delivered to a member dropped right
 * after the send — never as lost.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderSummaryMarkdown } from '../../src/report/summary.js';
import { runBenchmark } from '../../src/run/runner.js';
import { EXIT } from '../../src/util/exit-codes.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { profileFrom } from '../support/profiles.js';
import { startServeProcess } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-restart-');
const servers: ChildProcess[] = [];
afterAll(() => {
  for (const s of servers) s.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('the server restarted mid-step with load.reconnect', () => {
  it('is ridden out: reconnected, the gap reported, nothing counted lost for it', async () => {
    const first = await startServeProcess();
    servers.push(first.child);
    const port = first.port;
    const profile = profileFrom({
      name: 'restart',
      scenario: 'broadcast-public',
      target: {
        url: `ws://127.0.0.1:${port}/socket/websocket`,
        auth: { jwt_secret: DEV_JWT_SECRET },
      },
      load: {
        join_rate: 100,
        drain: '2s',
        reconnect: { enabled: true, initial_backoff: '300ms', max_backoff: '1s', max_attempts: 40 },
        steps: [
          { connections: 20, send_rate: 5, duration: '3s' },
          { connections: 20, send_rate: 5, duration: '15s' },
        ],
      },
    });
    let restarted = 0;
    let restartError = '';
    const outDir = join(work, 'run');
    const outcome = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir,
      log: (line) => {
        if (!line.startsWith('step 2/2')) return;
        setTimeout(() => {
          first.child.once('exit', () => {
            startServeProcess(port).then(
              (s) => {
                servers.push(s.child);
                restarted = Date.now();
              },
              (e: Error) => (restartError = e.message),
            );
          });
          first.child.kill('SIGKILL');
        }, 1_000);
      },
    });
    outcome.release?.();
    expect(restartError).toBe('');
    expect(restarted).toBeGreaterThan(0);
    expect(outcome.exitCode, outcome.result.abort_reason ?? '').toBe(EXIT.ok);
    expect(outcome.result.status).toBe('completed');
    const step = outcome.result.steps[1];
    const gap = step.connections.reconnect!;
    expect(gap.dropped).toBe(20);
    expect(gap.reconnected).toBe(20);
    expect(gap.gap_ms).toBeGreaterThan(0);
    expect(gap.gap_ms).toBeLessThan(15_000);
    expect(gap.longest_down_ms).toBeLessThanOrEqual(gap.gap_ms!);
    expect(step.connections.open_at_end).toBe(20);
    const m = step.messages;
    // The outage is accounted apart, never as lost.
    expect(m.lost).toBe(0);
    expect(
      (m.not_sent_connection_down ?? 0) + (m.not_delivered_connection_down ?? 0),
    ).toBeGreaterThan(0);
    expect(m.received).toBe(m.expected);
    // summary.md's line (what `rtcap run` writes from this result).
    expect(renderSummaryMarkdown(outcome.result)).toMatch(
      /Step 2: 20 connections dropped, 20 reconnected \(load\.reconnect\); the gap from the first drop to the last rejoin [\d.,]+ (ms|s)/,
    );
  }, 150_000);
});
