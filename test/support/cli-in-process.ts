/**
 * Runs rtcap's command line (cli/main) in this process and returns its exit code and what it
 * wrote: for tests of usage errors and exit codes, where nothing may start.
 */
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';

export async function cliInProcess(
  ...argv: string[]
): Promise<{ code: number; err: string; out: string }> {
  let err = '';
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation(
    (s: string | Uint8Array) => ((out += String(s)), true),
  );
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (s: string | Uint8Array) => ((err += String(s)), true),
  );
  process.exitCode = 0;
  try {
    await main(argv);
  } finally {
    vi.restoreAllMocks();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { code, err, out };
}
