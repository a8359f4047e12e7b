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
