/**
 * Secrets never reach the screen or the disk: runs with one known secret in every place a
 * secret can be given — the target URL's user:pass and query, headers, query params, auth
 * (jwt_secret, token_file), the metrics token, the database URL and the built-in server's
 * config — then greps every file the run wrote and the terminal output (stdout and stderr).
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/phoenix-test-server.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const SECRET = 'Kq7-SECRET-zz81';
// A JWT secret must be 32+ characters; it contains SECRET, so a leak of either is a hit.
const JWT_SECRET = `${SECRET}-jwt-secret-at-least-32-characters`;

const work = tempDir('rtcap-secrets-test-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function rtcap(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const kill = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code) => {
      clearTimeout(kill);
      res({ code, output });
    });
  });
}

/** Every file under `dir`, recursively, with its text. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((p) => statSync(p).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

function hits(text: string): string[] {
  return [SECRET, JWT_SECRET].filter((s) => text.includes(s));
}

describe('secrets are never written', () => {
  it(
    'a built-in-server run with a secret in headers, params, auth, metrics token, database URL and server config',
    { timeout: 150_000 },
    async () => {
      // The run's temporary files go here (TMPDIR), so the test can see that none is left behind.
      const runTmp = mkdtempSync(join(work, 'tmp-'));
      chmodSync(runTmp, 0o755);
      const out = join(work, 'builtin');
      const profile = join(work, 'builtin.yaml');
      writeFileSync(
        profile,
        [
          'name: secrets-builtin',
          'scenario: broadcast-public',
          'target:',
          '  vsn: "1.0.0"',
          '  topic: realtime:bench',
          `  headers: { X-Custom-Token: ${SECRET}, X-Session-Secret: ${SECRET} }`,
          `  params: { client_secret: ${SECRET} }`,
          `  auth: { jwt_secret: ${JWT_SECRET} }`,
          `  metrics_token: ${SECRET}`,
          `  database_url: postgres://bench:${SECRET}@127.0.0.1:1/x?password=${SECRET}`,
          '  server:',
          '    database: false',
          `    config: { jwt_secret: ${JWT_SECRET} }`,
          'load:',
          '  join_rate: 50',
          '  warmup: 0s',
          '  drain: 1s',
          '  steps:',
          '    - { connections: 4, send_rate: 2, duration: 1s }',
          '',
        ].join('\n'),
      );
      const r = await rtcap(['run', profile, '--out', out, '--no-progress'], { TMPDIR: runTmp });
      // The secrets were used: tokens minted with the JWT secret were accepted by the server
      // configured with it.
      expect(r.output).toMatch(/joined 4\/4/);
      expect(r.code).toBe(0);
      const files = filesUnder(out);
      expect(files.map((f) => f.path.slice(out.length + 1)).sort()).toEqual([
        // The marker that lets --force replace this directory later (docs/COMMANDS.md).
        '.rtcap-output',
        'report.html',
        'result.json',
        'server.log',
        'summary.md',
        'timeseries.ndjson',
      ]);
      for (const f of files)
        expect({ file: f.path, hits: hits(f.text) }).toEqual({ file: f.path, hits: [] });
      expect(hits(r.output)).toEqual([]);
      // The server's config went to a private temporary file, removed with the run.
      expect(readdirSync(runTmp).filter((n) => n.startsWith('rtcap-run-'))).toEqual([]);
    },
  );

  it(
    'a short, word-like secret is hidden where it stands, never as a word of names',
    { timeout: 150_000 },
    async () => {
      // postgres://postgres:postgres@… once made every "postgres" in the output "***": run id
      // 20261202-171356-***-changes-quick, scenario ***-changes.
      const out = join(work, 'word-like');
      const profile = join(work, 'word-like.yaml');
      writeFileSync(
        profile,
        [
          'name: postgres-check',
          'scenario: broadcast-public',
          'target:',
          '  vsn: "1.0.0"',
          '  topic: realtime:bench',
          '  headers: { X-Session-Secret: hunter2 }',
          '  metrics_token: hunter2',
          '  database_url: postgres://postgres:postgres@127.0.0.1:1/postgres',
          '  server: { database: false }',
          'load:',
          '  join_rate: 50',
          '  warmup: 0s',
          '  drain: 1s',
          '  steps:',
          '    - { connections: 2, send_rate: 2, duration: 1s }',
          '',
        ].join('\n'),
      );
      const r = await rtcap(['run', profile, '--out', out, '--no-progress']);
      expect(r.output).toMatch(/joined 2\/2/);
      expect(r.code).toBe(0);
      const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
        run_id: string;
        profile: { name: string; resolved: { target: { database_url: string } } };
      };
      expect(result.run_id).toMatch(/-postgres-check$/);
      expect(result.profile.name).toBe('postgres-check');
      expect(result.profile.resolved.target.database_url).toBe(
        'postgres://postgres:***@127.0.0.1:1/postgres',
      );
      for (const text of [r.output, ...filesUnder(out).map((f) => f.text)]) {
        expect(text).not.toContain('***-check');
        expect(text).not.toContain('hunter2');
        expect(text).not.toContain('postgres:postgres@');
      }
      expect(r.output).toContain('postgres-check');
    },
  );

  it(
    'an external target with user:pass and secret query parameters in --url, and a token file',
    { timeout: 120_000 },
    async () => {
      const server = await startTestServer();
      try {
        const out = join(work, 'external');
        const tokenFile = join(work, 'tokens.txt');
        writeFileSync(tokenFile, `${SECRET}-token-1\n${SECRET}-token-2\n`);
        const profile = join(work, 'external.yaml');
        writeFileSync(
          profile,
          [
            'name: secrets-external',
            'scenario: broadcast-public',
            'target:',
            '  topic: realtime:bench',
            `  auth: { token_file: ${tokenFile} }`,
            'load:',
            '  warmup: 0s',
            '  drain: 1s',
            '  steps:',
            '    - { connections: 2, send_rate: 2, duration: 1s }',
            '',
          ].join('\n'),
        );
        const url = `ws://bench:${SECRET}@127.0.0.1:${server.port}/socket/websocket?apikey=${SECRET}&token=${SECRET}&password=${SECRET}`;
        const r = await rtcap(['run', profile, '--url', url, '--out', out, '--no-progress']);
        expect(r.output).toMatch(/joined 2\/2/);
        for (const f of filesUnder(out))
          expect({ file: f.path, hits: hits(f.text) }).toEqual({ file: f.path, hits: [] });
        expect(hits(r.output)).toEqual([]);
        expect(readFileSync(join(out, 'result.json'), 'utf8')).toContain(
          `ws://bench:***@127.0.0.1:${server.port}/socket/websocket?apikey=***&token=***&password=***`,
        );
      } finally {
        await server.close();
      }
    },
  );

  it('a --url with the wrong scheme is refused without repeating its secret', async () => {
    const profile = join(work, 'scheme.yaml');
    writeFileSync(
      profile,
      [
        'name: s',
        'scenario: broadcast-public',
        'load:',
        '  steps:',
        '    - { connections: 1, duration: 1s }',
        '',
      ].join('\n'),
    );
    const r = await rtcap([
      'run',
      profile,
      '--url',
      `https://bench:${SECRET}@example.com/socket?apikey=${SECRET}`,
    ]);
    expect(r.code).toBe(2);
    expect(r.output.trim()).toMatch(
      /^rtcap: --url https:\/\/bench:\*\*\*@example\.com\/socket\?apikey=\*\*\*: expected ws:\/\/ or wss:\/\//,
    );
    expect(r.output).not.toContain(SECRET);
  });

  it('a profile error about another field does not show the secrets', async () => {
    const profile = join(work, 'bad.yaml');
    writeFileSync(
      profile,
      [
        'name: s',
        'scenario: broadcast-public',
        'target:',
        `  url: ws://u:${SECRET}@h/socket/websocket`,
        '  vsn: "9"',
        'load:',
        '  steps:',
        '    - { connections: 1, duration: 1s }',
        '',
      ].join('\n'),
    );
    const r = await rtcap(['run', profile]);
    expect(r.code).toBe(2);
    expect(hits(r.output)).toEqual([]);
  });
});
