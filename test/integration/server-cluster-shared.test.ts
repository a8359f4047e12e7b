/**
 * `rtcap serve --workers 2 --accept shared`: every worker accepts from the one listening socket
 * (no hand-off through the primary). Members wherever they landed still get each other's
 * broadcasts, and /metrics counts every connection once. A child process of its own: Node fixes
 * the cluster's scheduling policy at the first cluster set-up of a process.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { RawClient, token, until } from '../server/helpers.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');
const server = spawn(
  process.execPath,
  [
    BIN,
    'serve',
    '--port',
    '0',
    '--ready-json',
    '--no-database',
    '--workers',
    '2',
    '--accept',
    'shared',
  ],
  { stdio: ['ignore', 'pipe', 'ignore'] },
);
const clients: RawClient[] = [];
afterAll(() => {
  for (const c of clients) c.close();
  server.kill('SIGTERM');
});

describe('two workers sharing the listening socket', () => {
  it(
    'fans a broadcast out to every member; /metrics counts each connection once',
    { timeout: 60_000 },
    async () => {
      const line = await new Promise<string>((res, rej) => {
        createInterface({ input: server.stdout! }).once('line', res);
        server.once('exit', (code) => rej(new Error(`rtcap serve exited (${code})`)));
      });
      const { port, workers } = JSON.parse(line) as { port: number; workers: number };
      expect(workers).toBe(2);
      for (let i = 0; i < 6; i++) {
        const c = await RawClient.open(port, { vsn: '2.0.0', apikey: await token() });
        clients.push(c);
        c.send(['1', '1', 'realtime:shared', 'phx_join', { config: {} }]);
        expect((await c.v2('phx_reply', '1', 8000))[4]).toMatchObject({ status: 'ok' });
      }
      clients[0].send([null, '2', 'realtime:shared', 'broadcast', { event: 'e', payload: {} }]);
      await until(
        () =>
          clients
            .slice(1)
            .every((m) => m.frames.some((f) => Array.isArray(f.json) && f.json[3] === 'broadcast')),
        5000,
        'all members',
      );
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const gauge = (name: string) =>
        Number(
          text
            .split('\n')
            .find((l) => l.startsWith(`${name} `))
            ?.split(' ')[1],
        );
      expect(gauge('realtime_connections_connected')).toBe(6);
    },
  );
});
