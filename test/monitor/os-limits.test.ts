import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  countOpenFiles,
  fullestOpenFiles,
  parseOpenFilesLimit,
  readOpenFiles,
  readOpenFilesLimit,
} from '../../src/monitor/os-limits.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             96363                96363                processes
Max open files            300                  4096                 files
Max locked memory         8388608              8388608              bytes
`;

describe('parseOpenFilesLimit', () => {
  it('reads the soft limit, and null when unlimited or absent', () => {
    expect(parseOpenFilesLimit(LIMITS)).toBe(300);
    expect(
      parseOpenFilesLimit(LIMITS.replace('300                 ', 'unlimited           ')),
    ).toBeNull();
    expect(parseOpenFilesLimit('Limit Soft Hard\n')).toBeNull();
  });
});

describe('open files of a real process', () => {
  let child: ChildProcess | null = null;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = null;
  });

  it('reads a child started under prlimit: its limit and the 50 files it opened', async () => {
    // The child holds 50 extra descriptors (dups of /dev/null) and says when it has.
    const script =
      "const fs=require('fs'); for (let i=0;i<50;i++) fs.openSync('/dev/null','r'); console.log('ready'); setTimeout(()=>{}, 20000);";
    child = spawn('prlimit', ['--nofile=300:300', process.execPath, '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child!.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child!.on('error', reject);
      setTimeout(() => reject(new Error('child did not start')), 10_000);
    });
    const pid = child.pid!;
    expect(readOpenFilesLimit(pid)).toBe(300);
    const open = countOpenFiles(pid)!;
    expect(open).toBeGreaterThanOrEqual(50 + 3);
    expect(readOpenFiles(pid)).toEqual({ pid, open, limit: 300 });
    // This process's limit is higher: the child, at 53+ of 300, is the fuller one.
    expect(fullestOpenFiles([process.pid, pid])?.pid).toBe(pid);
  });

  it('is null for a pid that does not exist', () => {
    expect(countOpenFiles(2 ** 22 + 1)).toBeNull();
    expect(readOpenFiles(2 ** 22 + 1)).toBeNull();
    expect(fullestOpenFiles([2 ** 22 + 1])).toBeNull();
  });
});
