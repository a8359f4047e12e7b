/**
 * A target that is not there, refuses us, drops everyone mid-run or speaks garbage: each
 * gives a one-line cause, keeps the partial result on disk and a non-zero exit.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY_HINT } from '../../src/client/classify.js';
import { runBenchmark } from '../../src/run/runner.js';
import { EXIT } from '../../src/util/exit-codes.js';
import type { RunResult } from '../../src/result/result.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const quiet = () => undefined;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function run(url: string, steps = [{ connections: 30, send_rate: 10, duration: '3s' }]) {
  const dir = tempDir('rtcap-bad-');
  const profile = profileFrom({
    name: 'bad',
    scenario: 'broadcast-public',
    target: { url, join_timeout: '2s' },
    load: { join_rate: 100, steps, drain: '2s' },
  });
  const outcome = await runBenchmark({
    profile,
    profilePath: null,
    redactedProfile: {},
    outDir: dir,
    log: quiet,
  });
  const onDisk = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
  return { ...outcome, onDisk };
}

describe('bad targets', () => {
  it('an unreachable URL aborts with the connect error', async () => {
    const port = await freePort();
    const { result, exitCode, onDisk } = await run(`ws://127.0.0.1:${port}/socket/websocket`);
    expect(exitCode).toBe(EXIT.aborted);
    expect(result.abort_reason).toMatch(
      /^no connection could join: connect ECONNREFUSED 127\.0\.0\.1:\d+/,
    );
    expect(onDisk.status).toBe('aborted');
    expect(onDisk.steps).toHaveLength(1);
    expect(onDisk.steps[0].complete).toBe(false);
    expect(onDisk.steps[0].error_classes.network).toBeGreaterThan(0);
  });

  it('a refused upgrade keeps the HTTP status and body verbatim', async () => {
    server = await startTestServer({
      refuse: { status: 401, body: '{"error":"API key is missing"}' },
    });
    const { result, exitCode } = await run(server.url);
    expect(exitCode).toBe(EXIT.aborted);
    expect(result.abort_reason).toContain(
      'upgrade refused: HTTP 401 {"error":"API key is missing"}',
    );
    // …followed by which key the server expects and where rtcap takes it from.
    expect(Object.keys(result.steps[0].errors)).toEqual([
      `upgrade refused: HTTP 401 {"error":"API key is missing"} — ${API_KEY_HINT}`,
    ]);
  });

  it('a server that closes every socket mid-run aborts with the close code, and keeps the step', async () => {
    server = await startTestServer({ closeAllAfterMs: 1000 });
    const { result, exitCode, onDisk } = await run(server.url, [
      { connections: 30, send_rate: 10, duration: '6s' },
    ]);
    expect(exitCode).toBe(EXIT.aborted);
    expect(result.abort_reason).toMatch(
      /all 30 connections were lost: closed by server: 1001 going away/,
    );
    const s = onDisk.steps[0];
    expect(s.complete).toBe(false);
    expect(s.connections.disconnected).toBe(30);
    expect(s.messages.sent).toBeGreaterThan(0);
    // Broken — unless a loaded machine also made the generator fall behind, which outranks it;
    // the disconnects are among the reasons either way.
    expect(['broken', 'generator-bound']).toContain(s.verdict);
    expect(s.verdict_reasons.join('\n')).toContain('30 connections disconnected');
  });

  it('a server that answers with malformed frames is reported as such', async () => {
    server = await startTestServer({ malformed: true });
    const { result, exitCode } = await run(server.url);
    expect(exitCode).toBe(EXIT.aborted);
    expect(result.abort_reason).toMatch(
      /no connection could join: (malformed frame \(not JSON\): this is not a phoenix frame \{|join timeout)/,
    );
    expect(
      Object.keys(result.steps[0].errors).some((k) => k.startsWith('malformed frame (not JSON)')),
    ).toBe(true);
  });
});
