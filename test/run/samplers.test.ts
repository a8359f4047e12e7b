import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { localServerOf } from '../../src/run/samplers.js';
import { profileFrom } from '../support/profiles.js';

const profile = (url: string, extra: Record<string, unknown> = {}) =>
  profileFrom({
    name: 'p',
    scenario: 'broadcast-public',
    target: { url, ...extra },
    load: { steps: [{ connections: 1, duration: '1s' }] },
  });

describe('localServerOf', () => {
  let server: Server | null = null;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  it('takes the started or given pid first', () => {
    expect(
      localServerOf(profile('ws://127.0.0.1:1/socket'), 4242, 'ws://127.0.0.1:1/socket')?.pid,
    ).toBe(4242);
    expect(
      localServerOf(
        profile('ws://10.0.0.9:4000/socket', { server_pid: 77 }),
        null,
        'ws://10.0.0.9:4000/socket',
      )?.pid,
    ).toBe(77);
  });

  it('finds the process listening on a loopback URL, and never looks a remote one up', async () => {
    server = createServer();
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const url = `ws://127.0.0.1:${port}/socket/websocket`;
    expect(localServerOf(profile(url), null, url)).toEqual({
      pid: process.pid,
      source: `pid ${process.pid} found listening on 127.0.0.1:${port}, its process tree sampled (/proc)`,
    });
    // The same port on a remote host name is not this machine's: nothing found.
    const remote = `ws://realtime.example.test:${port}/socket/websocket`;
    expect(localServerOf(profile(remote), null, remote)).toBeNull();
  });
});
