/**
 * `rtcap dashboard DIR` ends on a signal with the shell's code for it, as the exit table of
 * docs/FAULTS.md says: 130 on Ctrl-C (SIGINT), 143 on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const BIN = resolve(import.meta.dirname, '../../bin/rtcap.js');

function endedBy(sig: NodeJS.Signals): Promise<{ code: number | null; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, 'dashboard', tempDir('rtcap-dash-exit-')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let sent = false;
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      // Once it serves, the signal a user sends.
      if (!sent && stderr.includes('Ctrl-C to stop')) sent = child.kill(sig);
    });
    child.on('exit', (code) => {
      clearTimeout(killer);
      res({ code, stderr });
    });
  });
}

describe('rtcap dashboard', () => {
  it('exits 130 on Ctrl-C and 143 on SIGTERM', { timeout: 60_000 }, async () => {
    const int = await endedBy('SIGINT');
    expect(int.code, int.stderr).toBe(130);
    const term = await endedBy('SIGTERM');
    expect(term.code, term.stderr).toBe(143);
  });
});
