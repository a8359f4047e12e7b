/**
 * The README's `--url` example against `rtcap serve`, as written (the port the server picked
 * put in for 4000, the steps shortened): it joins and completes. Without a key the refusal says
 * which key the server expects and where rtcap takes it from.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, rtcapProcess, startServeProcess } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-readme-url-');
let serve: ChildProcess | null = null;
let port = 0;

beforeAll(async () => {
  const started = await startServeProcess();
  serve = started.child;
  port = started.port;
}, 60_000);

afterAll(() => {
  serve?.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
});

/** The README's `npx rtcap run profiles/quickstart.yaml --url …` line, split into arguments. */
function readmeUrlLine(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const line = readme
    .split('\n')
    .find((l) => l.startsWith('npx rtcap run profiles/quickstart.yaml --url ws://127.0.0.1:4000'));
  expect(line, 'the README has the --url example').toBeDefined();
  return line!.split('#')[0].trim().split(/\s+/).slice(2);
}

const SHORT = ['--set', 'load.steps=[{connections: 20, send_rate: 2, duration: 2s}]'];

describe('the README --url example against rtcap serve', () => {
  it('joins and completes as written', async () => {
    const args = readmeUrlLine().map((a) => a.replace(':4000/', `:${port}/`));
    const out = join(work, 'ok');
    const r = await rtcapProcess([...args, ...SHORT, '--out', out, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
      status: string;
      steps: { connections: { joined: number }; errors: Record<string, number> }[];
    };
    expect(result.status).toBe('completed');
    expect(result.steps[0].connections.joined).toBe(20);
    expect(result.steps[0].errors).toEqual({});
  }, 120_000);

  it('without a key the one line says which key is expected and where it goes', async () => {
    const profile = join(work, 'nokey.yaml');
    writeFileSync(
      profile,
      [
        'name: nokey',
        'scenario: broadcast-public',
        `target: { url: "ws://127.0.0.1:${port}/socket/websocket" }`,
        'load: { join_rate: 100, steps: [ { connections: 20, send_rate: 2, duration: 2s } ] }',
        '',
      ].join('\n'),
    );
    const r = await rtcapProcess(['run', profile, '--out', join(work, 'nokey'), '--no-progress']);
    expect(r.code, r.stderr).toBe(3);
    const line = r.stderr.split('\n').find((l) => l.startsWith('run aborted: '));
    expect(line).toMatch(/HTTP 401 \{"error":"API key is missing"\} — the server expects an API/);
    expect(line).toMatch(/target\.auth\.apikey \(target\.auth\.apikey_in: query or header\)/);
    expect(line).toMatch(/target\.auth\.jwt_secret/);
  }, 120_000);
});
