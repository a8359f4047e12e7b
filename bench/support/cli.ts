/**
 * What the bench scripts share: their `--name value` options and the fan-out blaster they measure
 * against.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The value after `--name` on the command line, else `dflt`. */
export function option<D extends string | null>(name: string, dflt: D): string | D {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
}

export interface Blaster {
  port: number;
  pid: number;
  stop: () => void;
}

/**
 * Starts bench/support/blaster.ts (on CPU `cpu` with taskset, or anywhere when null) and
 * resolves with its port once it listens.
 */
export function startBlaster(
  opts: { cpu?: number | null; stderr?: 'inherit' | 'ignore' } = {},
): Promise<Blaster> {
  const node = [process.execPath, '--import', 'tsx', join(ROOT, 'bench/support/blaster.ts')];
  const [cmd, ...argv] =
    opts.cpu === null ? node : ['taskset', '-c', String(opts.cpu ?? 1), ...node];
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', opts.stderr ?? 'inherit'] });
  return new Promise((res, rej) => {
    createInterface({ input: child.stdout! }).once('line', (l) =>
      res({
        port: (JSON.parse(l) as { port: number }).port,
        pid: child.pid!,
        stop: () => child.kill('SIGTERM'),
      }),
    );
    child.once('exit', (c) => rej(new Error(`blaster exited ${c}`)));
  });
}
