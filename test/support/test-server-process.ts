/**
 * A test server whose timing must not share an event loop with rtcap's coordinator (which
 * runs inside the test's own process): a serial writer near its rate turns every stall of its
 * process into queueing that takes 1 / (1 − utilisation) times as long to clear. Forked with
 * tsx, port 0 on 127.0.0.1 as every test server; killed with the test.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { TestServer, TestServerOptions } from './phoenix-test-server.js';

export interface TestServerProcess {
  url: string;
  port: number;
  pid: number;
  stats(): Promise<TestServer['stats']>;
  close(): Promise<void>;
}

const MAIN = resolve(__dirname, 'test-server-main.ts');

function once<T>(child: ChildProcess, type: string, timeoutMs: number): Promise<T> {
  return new Promise((ok, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`test server: no ${type} in ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      fail(new Error(`test server exited (${code}) before ${type}`));
    };
    const onMessage = (m: { type?: string }) => {
      if (m?.type !== type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      // A test polling stats() must not pile up exit listeners.
      child.off('exit', onExit);
      ok(m as T);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export async function startTestServerProcess(
  opts: TestServerOptions = {},
): Promise<TestServerProcess> {
  const child = fork(MAIN, [JSON.stringify(opts)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await once<{ url: string; port: number }>(child, 'ready', 30_000);
  return {
    url: ready.url,
    port: ready.port,
    pid: child.pid!,
    async stats() {
      child.send({ type: 'stats' });
      return (await once<{ stats: TestServer['stats'] }>(child, 'stats', 5_000)).stats;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
      child.send({ type: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
