/**
 * rtcap's command line in its own process, for the suites that need its exit code and stderr,
 * and `rtcap serve` on a free port in its own process (so a test can kill it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = resolve(ROOT, 'bin/rtcap.js');

export function rtcapProcess(
  args: string[],
  cwd = ROOT,
): Promise<{ code: number | null; stderr: string; ms: number }> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((r) => child.on('exit', (code) => r({ code, stderr, ms: Date.now() - t0 })));
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * `rtcap ARGS` in its own process, as a user runs it (cwd `cwd`, extra environment `env`),
 * stopped with SIGINT after `timeoutMs` (default 2 min; SIGKILL 15 s later): a bounded run
 * either way.
 */
export function rtcapCli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliRun> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const stop = setTimeout(() => {
    child.kill('SIGINT');
    setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
  }, opts.timeoutMs ?? 120_000);
  return new Promise((r) =>
    child.on('exit', (code) => {
      clearTimeout(stop);
      r({ code, stdout, stderr, ms: Date.now() - t0 });
    }),
  );
}

export async function startServeProcess(
  askedPort = 0,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--port', String(askedPort), '--no-database'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const port = await new Promise<number>((ok, fail) => {
    const read = (d: Buffer) => {
      out += d.toString();
      const m = /listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) ok(Number(m[1]));
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => fail(new Error(`rtcap serve exited (${code}): ${out}`)));
  });
  return { child, port };
}
