/**
 * The accept gate on a real listening socket in this process, with a small limit of its own (the
 * gate's `limit`, not the process's rlimit) and no other files counted: it asks at the high-water
 * mark, stops accepting only when the primary says yes, asks again a quarter-reserve later when
 * it says no, and listens again under the low-water mark.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AcceptGate, reserveOf } from '../../../src/server/cluster/accept-gate.js';
import { until } from '../helpers.js';

const LIMIT = 50; // reserve 16: asks at 34 files, listens again at 18
let server: Server;
let port = 0;
const clients: Socket[] = [];

async function listen(): Promise<void> {
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  port = (server.address() as { port: number }).port;
}

function connect(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(port, '127.0.0.1');
    s.once('connect', () => {
      clients.push(s);
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function gateWith(answer: (gate: AcceptGate) => void) {
  server = createServer();
  port = 0;
  await listen();
  const calls = { asks: 0, resumed: 0, listens: 0, log: [] as string[] };
  const gate: AcceptGate = new AcceptGate({
    server,
    listen: () => {
      calls.listens++;
      server.listen(port, '127.0.0.1');
    },
    ask: () => {
      calls.asks++;
      setImmediate(() => answer(gate));
    },
    resumed: () => calls.resumed++,
    limit: LIMIT,
    baseFiles: 0,
    log: (l) => calls.log.push(l),
  });
  return { gate, calls };
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await new Promise((r) => (server?.listening ? server.close(r) : setImmediate(r)));
});

describe('AcceptGate', () => {
  it('keeps half the step-limit margin free', () => {
    expect(reserveOf(50)).toBe(16);
    expect(reserveOf(20_000)).toBe(100);
  });

  it('stops accepting at the high-water mark when the primary agrees, and listens again under the low-water mark', async () => {
    const { gate, calls } = await gateWith((g) => g.answer(true));
    for (let i = 0; i < LIMIT - 16; i++) expect(await connect()).toBe(true);
    await until(() => !server.listening, 3000, 'the gate to stop accepting');
    expect(calls.asks).toBe(1);
    expect(gate.accepting).toBe(false);
    expect(gate.pauses).toBe(1);
    expect(calls.log[0]).toBe(
      'at 34 of 50 open files: stopped accepting (the other workers take new connections) until under 18',
    );
    // Not accepting: the next connection is refused (no other worker listens in this test).
    expect(await connect()).toBe(false);
    // Down to 18 files: accepting again.
    for (const c of clients.splice(0, 16)) c.destroy();
    await until(() => server.listening, 3000, 'the gate to listen again');
    expect(gate.accepting).toBe(true);
    expect(calls.resumed).toBe(1);
    expect(calls.listens).toBe(1);
    expect(await connect()).toBe(true);
  });

  it('keeps accepting when the primary says no (the last worker accepting), asking again a quarter-reserve later', async () => {
    const { gate, calls } = await gateWith((g) => g.answer(false));
    for (let i = 0; i < 34; i++) expect(await connect()).toBe(true);
    await until(() => calls.asks === 1, 3000, 'the ask');
    for (let i = 0; i < 3; i++) expect(await connect()).toBe(true);
    expect(calls.asks).toBe(1);
    expect(await connect()).toBe(true); // 38 files: 34 + 16 / 4
    await until(() => calls.asks === 2, 3000, 'the second ask');
    expect(gate.accepting).toBe(true);
    expect(server.listening).toBe(true);
    expect(calls.log).toEqual([]);
  });

  it('never listens again once stopped (shutting down)', async () => {
    const { gate, calls } = await gateWith((g) => g.answer(true));
    for (let i = 0; i < 34; i++) await connect();
    await until(() => !server.listening, 3000, 'the gate to stop accepting');
    gate.stop();
    for (const c of clients.splice(0)) c.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect(server.listening).toBe(false);
    expect(calls.listens).toBe(0);
  });
});
