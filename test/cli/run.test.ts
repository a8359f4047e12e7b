/**
 * `rtcap run` as a user runs it: the binary, its exit codes, its one-line errors, and what
 * it leaves on disk when interrupted.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RESULT_SCHEMA, type RunResult } from '../../src/result/result.js';
import { OUT_MARKER } from '../../src/run/out-dir.js';
import { startTestServer, type TestServer } from '../support/phoenix-test-server.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function rtcap(
  args: string[],
  opts: { interruptWhen?: () => boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let polls = 0;
    const poll = opts.interruptWhen
      ? setInterval(() => {
          // Interrupt once the condition holds (or after 30 s, so the test cannot hang).
          if (opts.interruptWhen!() || ++polls > 300) {
            clearInterval(poll!);
            child.kill('SIGINT');
          }
        }, 100)
      : null;
    child.on('exit', (code) => {
      if (poll) clearInterval(poll);
      res({ code, stdout, stderr });
    });
  });
}

function profileFile(text: string): string {
  const dir = tempDir('rtcap-cli-');
  const p = join(dir, 'profile.yaml');
  writeFileSync(p, text);
  return p;
}

describe('rtcap run (the binary)', () => {
  it('a mistyped field exits 2 with the field, its line and a suggestion, and runs nothing', async () => {
    const p = profileFile(
      [
        'name: x',
        'scenario: broadcast-public',
        'load:',
        '  join_rte: 10',
        '  steps:',
        '    - { connections: 1, duration: 1s }',
        '',
      ].join('\n'),
    );
    const r = await rtcap(['run', p, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `${p}:4:3: load.join_rte: unknown field (did you mean "join_rate"?)`,
    );
  });

  it('a missing profile file exits 2 naming it', async () => {
    const r = await rtcap(['run', '/nonexistent/profile.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/nonexistent/profile.yaml: cannot read profile: no such file');
  });

  it('--out into a directory that holds a run is refused in one line; --force replaces that run', async () => {
    server = await startTestServer();
    const p = profileFile(
      [
        'name: cli',
        'scenario: broadcast-public',
        'load:',
        '  drain: 1s',
        '  steps:',
        '    - { connections: 2, send_rate: 2, duration: 1s }',
        '',
      ].join('\n'),
    );
    const out = tempDir('rtcap-cli-out-');
    // A run written before rtcap marked its directories: its result.json of rtcap's schema.
    const old = JSON.stringify({ schema: RESULT_SCHEMA, steps: [] }) + '\n';
    writeFileSync(join(out, 'result.json'), old);
    writeFileSync(join(out, 'server.log'), 'old server log\n');
    const refused = await rtcap(['run', p, '--url', server.url, '--out', out, '--no-progress']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      `--out ${out}: already holds a run (result.json, server.log); choose another directory, or add --force to replace that run`,
    );
    expect(readFileSync(join(out, 'result.json'), 'utf8')).toBe(old);

    const forced = await rtcap([
      'run',
      p,
      '--url',
      server.url,
      '--out',
      out,
      '--force',
      '--no-progress',
    ]);
    expect(forced.code).toBe(0);
    expect(existsSync(join(out, 'server.log'))).toBe(false);
    expect(existsSync(join(out, OUT_MARKER))).toBe(true);
    expect(
      (JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult).steps,
    ).toHaveLength(1);
  });

  it('runs against --url with --set overrides and pinned generator CPUs, and records them', async () => {
    server = await startTestServer();
    const p = profileFile(
      [
        'name: cli',
        'scenario: broadcast-public',
        'load:',
        '  join_rate: 200',
        '  drain: 2s',
        '  steps:',
        '    - { connections: 5, send_rate: 5, duration: 1s }',
        '',
      ].join('\n'),
    );
    const out = tempDir('rtcap-cli-out-');
    const r = await rtcap([
      'run',
      p,
      '--url',
      server.url,
      '--out',
      out,
      '--set',
      'load.steps.0.connections=8',
      '--generator-cpus',
      '0',
      '--no-progress',
    ]);
    expect(r.code).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
    expect(result.status).toBe('completed');
    expect(result.generator.cpus).toBe('0');
    expect(result.steps[0].connections.joined).toBe(8);
    expect(result.steps[0].messages.expected).toBe(5 * 7);
    expect(existsSync(join(out, 'summary.md'))).toBe(true);
    expect(r.stderr).toContain(`wrote ${out}/`);
  });

  it('an abort_on_fail threshold stops the run after the first step that fails it: exit 99, the reason, a readable partial result', async () => {
    server = await startTestServer();
    const p = profileFile(
      [
        'name: gate',
        'scenario: broadcast-public',
        'thresholds:',
        '  - "errors == 0"',
        '  - { threshold: "connections < 6", abort_on_fail: true }',
        'load:',
        '  join_rate: 200',
        '  drain: 1s',
        '  steps:',
        '    - { connections: 4, send_rate: 2, duration: 1s }',
        '    - { connections: 8, send_rate: 2, duration: 1s }',
        '    - { connections: 12, send_rate: 2, duration: 1s }',
        '',
      ].join('\n'),
    );
    const out = tempDir('rtcap-cli-out-');
    const r = await rtcap(['run', p, '--url', server.url, '--out', out, '--no-progress']);
    expect(r.code).toBe(99);
    expect(r.stderr).toContain(
      'run aborted: threshold failed with abort_on_fail: connections < 6: fail — step 2: 8',
    );
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult & {
      thresholds: { pass: boolean; results: { expression: string; pass: boolean }[] };
    };
    expect(result.status).toBe('aborted');
    expect(result.abort_reason).toBe(
      'threshold failed with abort_on_fail: connections < 6: fail — step 2: 8',
    );
    // Step 3 never ran; the two that did are whole.
    expect(result.steps.map((s) => [s.index, s.connections.joined, s.complete])).toEqual([
      [1, 4, true],
      [2, 8, true],
    ]);
    expect(result.thresholds.results.map((t) => [t.expression, t.pass])).toEqual([
      ['errors == 0', true],
      ['connections < 6', false],
    ]);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('connections < 6');
  });

  it('Ctrl-C mid-step exits 130 and leaves a readable partial result', async () => {
    server = await startTestServer();
    const p = profileFile(
      [
        'name: cli-int',
        'scenario: broadcast-public',
        'load:',
        '  join_rate: 200',
        '  steps:',
        '    - { connections: 10, send_rate: 10, duration: 60s }',
        '',
      ].join('\n'),
    );
    const out = tempDir('rtcap-cli-int-');
    // Interrupt after two steady seconds in which messages were sent, whatever the machine's load
    // made of the start: a step cut short counts the messages due a second before the cut, and
    // two steady seconds read early under load could hold none (sent 0, once, in a full run).
    const steadySeconds = () => {
      try {
        return readFileSync(join(out, 'timeseries.ndjson'), 'utf8')
          .split('\n')
          .filter((l) => l.includes('"phase":"steady"'))
          .filter((l) => {
            try {
              return (JSON.parse(l) as { sent_per_s: number }).sent_per_s > 0;
            } catch {
              return false; // a line still being written
            }
          }).length;
      } catch {
        return 0;
      }
    };
    const r = await rtcap(['run', p, '--url', server.url, '--out', out, '--no-progress'], {
      interruptWhen: () => steadySeconds() >= 2,
    });
    expect(r.code).toBe(130);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
    expect(result.status).toBe('interrupted');
    expect(result.steps).toHaveLength(1);
    expect(result.steps[0].complete).toBe(false);
    expect(result.steps[0].messages.sent).toBeGreaterThan(0);
    expect(result.steps[0].messages.received).toBe(result.steps[0].messages.expected);
    expect(
      readFileSync(join(out, 'timeseries.ndjson'), 'utf8').trim().split('\n').length,
    ).toBeGreaterThan(1);
  });
});
