/**
 * `rtcap serve` where it cannot listen — a port another process holds, an address this machine
 * does not have — is a usage error naming the flag (exit 2), as `--metrics-port` and
 * `dashboard --port` are; before, it exited 1 with the raw "listen EADDRINUSE".
 */
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenProblem } from '../../src/cli/serve.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');

/** The built CLI, killed after `boundMs`: a server that started fails the test, not holds it. */
function serve(args: string[], boundMs = 30_000): Promise<{ code: number | null; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--no-database', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), boundMs);
    child.on('exit', (code) => {
      clearTimeout(killer);
      done({ code, err });
    });
  });
}

describe('listenProblem', () => {
  const at = { port: 4000, host: '127.0.0.1' };
  it('names --port for a port in use or not allowed, --host for an address not here', () => {
    const err = (code: string, syscall: string) =>
      Object.assign(new Error(code), { code, syscall });
    expect(listenProblem(err('EADDRINUSE', 'listen'), at)).toBe(
      '--port 4000: cannot listen on 127.0.0.1:4000 (EADDRINUSE)',
    );
    expect(listenProblem(err('EACCES', 'listen'), at)).toMatch(/^--port 4000: /);
    expect(listenProblem(err('EADDRNOTAVAIL', 'listen'), { port: 0, host: '192.0.2.1' })).toBe(
      '--host 192.0.2.1: cannot listen on 192.0.2.1:0 (EADDRNOTAVAIL)',
    );
    expect(listenProblem(err('ENOTFOUND', 'getaddrinfo'), at)).toMatch(/^--host 127\.0\.0\.1: /);
  });

  it('leaves every other failure alone (a file not readable is not a flag of the listener)', () => {
    const e = Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'open' });
    expect(listenProblem(e, at)).toBeNull();
    expect(listenProblem(new Error('boom'), at)).toBeNull();
  });
});

describe('the built CLI', () => {
  let holder: Server;
  let busy: number;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    busy = (holder.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => holder.close(() => r())));

  it('a port in use: exit 2, one line naming --port', { timeout: 40_000 }, async () => {
    const r = await serve(['--port', String(busy)]);
    expect({ code: r.code, err: r.err }).toEqual({
      code: 2,
      err: `rtcap serve: --port ${busy}: cannot listen on 127.0.0.1:${busy} (EADDRINUSE)\n`,
    });
  });

  it(
    'an address this machine does not have: exit 2, naming --host',
    { timeout: 40_000 },
    async () => {
      // 192.0.2.1 is TEST-NET-1 (RFC 5737): never a local address, and nothing is sent to it.
      const r = await serve(['--port', '0', '--host', '192.0.2.1']);
      expect({ code: r.code, err: r.err }).toEqual({
        code: 2,
        err: 'rtcap serve: --host 192.0.2.1: cannot listen on 192.0.2.1:0 (EADDRNOTAVAIL)\n',
      });
    },
  );
});
