/**
 * `rtcap quotas` as a user runs it (the binary, dist/): against the built-in server it starts
 * with the declared quotas it passes; against a server started with another join-rate quota
 * it fails and names that quota. The servers tick their rate counters every 100 ms and answer
 * refusals at once, so each run takes seconds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import type { QuotasReport } from '../../src/result/quotas.js';
import { makeSigningKey, makeTestPki } from '../support/tls.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
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

async function serveWith(flags: string[]): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--port',
      '0',
      '--ready-json',
      '--no-database',
      '--rate-tick-ms',
      '100',
      '--channel-error-backoff-ms',
      '0',
      '--connect-error-backoff-ms',
      '0',
      ...flags,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  children.push(child);
  const line = await new Promise<string>((res, rej) => {
    createInterface({ input: child.stdout! }).once('line', res);
    child.once('exit', (code) => rej(new Error(`rtcap serve exited (${code})`)));
  });
  return (JSON.parse(line) as { url: string }).url;
}

/**
 * A server rtcap did not start needs the token secret (rtcap serve's default, the Supabase dev
 * secret).
 */
const DEV_AUTH = 'auth: { jwt_secret: super-secret-jwt-token-with-at-least-32-characters-long }';

function profile(quotas: Record<string, number>, external = false): string {
  const dir = tempDir('rtcap-quotas-');
  const lines = [
    'name: quotas-test',
    'scenario: broadcast-public',
    `target: { vsn: "2.0.0"${external ? `, ${DEV_AUTH}` : ''} }`,
    'load: { steps: [ { connections: 10, send_rate: 1, duration: 1s } ] }',
    'quotas:',
    ...Object.entries(quotas).map(([k, v]) => `  ${k}: ${v}`),
    '  rate_tick: 100ms',
    '  error_backoff: 0',
    '',
  ];
  writeFileSync(join(dir, 'p.yaml'), lines.join('\n'));
  return join(dir, 'p.yaml');
}

describe('rtcap quotas', () => {
  it('passes every declared quota on the built-in server started with them, and writes quotas.json and quotas.md', async () => {
    const out = tempDir('rtcap-quotas-out-');
    const declared = {
      max_payload_size_in_kb: 20,
      max_channels_per_client: 10,
      max_concurrent_users: 15,
      max_joins_per_second: 40,
      max_events_per_second: 200,
      max_presence_events_per_second: 100,
    };
    const r = await rtcap(['quotas', profile(declared), '--out', out]);
    expect(r.stderr).toContain('quotas: PASS — 6 of 6 as declared');
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'quotas.json'), 'utf8')) as QuotasReport;
    expect(report.target.builtin).toBe(true);
    expect(report.target.server_config).toEqual(declared);
    expect(report.rows.map((x) => [x.quota, x.pass])).toEqual(
      Object.keys(declared).map((k) => [k, true]),
    );
    expect(readFileSync(join(out, 'quotas.md'), 'utf8')).toContain(
      '**PASS** — 6 of 6 quotas as declared.',
    );
  });

  it('fails, naming the quota, when the server enforces another join rate than the declared one (exit 99)', async () => {
    const url = await serveWith([
      '--max-joins-per-second',
      '20',
      '--max-channels-per-client',
      '10',
    ]);
    const out = tempDir('rtcap-quotas-out-');
    const r = await rtcap([
      'quotas',
      profile({ max_channels_per_client: 10, max_joins_per_second: 40 }, true),
      '--url',
      url,
      '--out',
      out,
    ]);
    expect(r.code).toBe(99);
    expect(r.stderr).toContain('quotas: FAIL — 1 of 2 as declared; failed: max_joins_per_second');
    const report = JSON.parse(readFileSync(join(out, 'quotas.json'), 'utf8')) as QuotasReport;
    const [channels, joins] = report.rows;
    expect(channels).toMatchObject({ quota: 'max_channels_per_client', pass: true, onset: 10 });
    expect(joins).toMatchObject({ quota: 'max_joins_per_second', pass: false, declared: 40 });
    expect(joins.failures[0]).toMatch(/^rejected below the declared value: \d+ at 32 joins\/s/);
    // Where the server really trips: its own 20/s, not the declared 40/s.
    expect(joins.onset!).toBeGreaterThan(16);
    expect(joins.onset!).toBeLessThan(24);
  });

  it('checks a wss:// target trusted through target.tls.ca with ES256 tokens minted from a private key (kid in the JWKS the server verifies with)', async () => {
    const pki = makeTestPki();
    const key = makeSigningKey(pki.dir, 'quota-key');
    const url = await serveWith([
      '--tls-cert',
      pki.serverCert,
      '--tls-key',
      pki.serverKey,
      '--jwks',
      key.jwksFile,
      '--max-channels-per-client',
      '10',
    ]);
    expect(url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\//);
    const file = join(pki.dir, 'p.yaml');
    writeFileSync(
      file,
      [
        'name: quotas-tls-test',
        'scenario: broadcast-public',
        'target:',
        '  vsn: "2.0.0"',
        `  tls: { ca: ${JSON.stringify(pki.caCert)} }`,
        `  auth: { private_key_file: ${JSON.stringify(key.privateKeyFile)}, alg: ES256, kid: quota-key }`,
        'load: { steps: [ { connections: 10, send_rate: 1, duration: 1s } ] }',
        'quotas:',
        '  max_channels_per_client: 10',
        '  rate_tick: 100ms',
        '  error_backoff: 0',
        '',
      ].join('\n'),
    );
    const out = tempDir('rtcap-quotas-out-');
    const r = await rtcap(['quotas', file, '--url', url, '--out', out]);
    expect(r.stderr).toContain('quotas: PASS — 1 of 1 as declared');
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'quotas.json'), 'utf8')) as QuotasReport;
    expect(report.target.url).toMatch(/^wss:\/\//);
    expect(report.rows).toHaveLength(1);
    expect(report.rows[0]).toMatchObject({
      quota: 'max_channels_per_client',
      pass: true,
      onset: 10,
    });
  });
});
