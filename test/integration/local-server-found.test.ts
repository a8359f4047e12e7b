/**
 * A server the user started by hand on this machine (`rtcap serve` in its own process, as a
 * Phoenix app would be) and pointed at with a loopback URL: rtcap finds it by its listening
 * port, samples its process tree for CPU and memory (and its open files against its limit), and
 * says so in the summary, instead of "server CPU and memory were not sampled".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArtifactHooks } from '../../src/artefacts/render.js';
import { readOpenFilesLimit } from '../../src/monitor/os-limits.js';
import { runBenchmark } from '../../src/run/runner.js';
import { DEV_JWT_SECRET } from '../../src/builtin/config.js';
import { profileFrom } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(__dirname, '../../bin/rtcap.js');
let child: ChildProcess;
let ready: { pid: number; port: number; url: string };

beforeAll(async () => {
  child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--no-database', '--ready-json'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  ready = await new Promise((res, rej) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n').find((l) => l.includes('"ready"'));
      if (line) res(JSON.parse(line) as typeof ready);
    });
    child.on('exit', (c) => rej(new Error(`rtcap serve exited ${c}`)));
    setTimeout(() => rej(new Error('rtcap serve did not get ready')), 30_000);
  });
});
afterAll(() => {
  child.kill('SIGTERM');
});

describe('a local server started by the user', () => {
  it('is found by its listening port and sampled', async () => {
    const profile = profileFrom({
      name: 'local-found',
      scenario: 'broadcast-public',
      target: { url: ready.url, vsn: '2.0.0', auth: { jwt_secret: DEV_JWT_SECRET } },
      load: {
        join_rate: 500,
        drain: '2s',
        steps: [{ connections: 30, send_rate: 5, duration: '3s' }],
      },
      slo: { p95_ms: 5000 },
    });
    const dir = tempDir('rtcap-local-');
    const { result } = await runBenchmark({
      profile,
      profilePath: null,
      redactedProfile: {},
      outDir: dir,
      log: () => undefined,
      ...runArtifactHooks(),
    });
    const source = `pid ${ready.pid} found listening on 127.0.0.1:${ready.port}, its process tree sampled (/proc)`;
    expect(result.target.server_sampling).toBe(source);
    const s = result.steps[0];
    expect(s.server.source).toBe(source);
    expect(s.server.rss_mb).toBeGreaterThan(10);
    expect(s.server.cpu_pct).not.toBeNull();
    expect(s.server.open_files).toMatchObject({
      pid: ready.pid,
      limit: readOpenFilesLimit(ready.pid),
    });
    expect(s.server.open_files!.max).toBeGreaterThanOrEqual(30);
    const md = readFileSync(join(dir, 'summary.md'), 'utf8');
    expect(md).toContain(`| server sampling | ${source} |`);
    expect(md).not.toContain('were not sampled');
  });
});
