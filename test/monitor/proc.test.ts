import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processTree, ProcTreeSampler, readProcStat } from '../../src/monitor/proc.js';

const stat = (pid: number, ppid: number, comm = 'node') => ({ pid, ppid, comm, cpuTicks: 0, rssPages: 1 });

describe('processTree', () => {
  it('collects the root and every descendant, not siblings', () => {
    const stats = [stat(1, 0), stat(10, 1), stat(11, 10), stat(12, 10, 'postgres'), stat(20, 1)];
    expect(processTree(10, stats).map((s) => s.pid).sort()).toEqual([10, 11, 12]);
  });
  it('is empty for a pid that does not exist', () => {
    expect(processTree(99, [stat(1, 0)])).toEqual([]);
  });
});

describe('readProcStat', () => {
  it('reads this process, whose comm may contain spaces and parentheses elsewhere', () => {
    const s = readProcStat(process.pid)!;
    expect(s.pid).toBe(process.pid);
    expect(s.ppid).toBe(process.ppid);
    expect(s.rssPages).toBeGreaterThan(0);
  });
});

describe('ProcTreeSampler', () => {
  it('measures a busy child as about one core, and nulls for a pid that is gone', async () => {
    const child = spawn(process.execPath, ['-e', 'const end = Date.now() + 3000; while (Date.now() < end) {}']);
    try {
      const s = new ProcTreeSampler(child.pid!);
      const first = await s.sample();
      expect(first.cpuCores).toBeNull(); // no interval yet: null, never 0
      await new Promise((r) => setTimeout(r, 1000));
      const second = await s.sample();
      expect(second.cpuCores!).toBeGreaterThan(0.3);
      expect(second.cpuCores!).toBeLessThan(1.3);
      expect(second.rssMb!).toBeGreaterThan(5);
    } finally {
      child.kill();
    }
    const gone = new ProcTreeSampler(2 ** 22 + 12345);
    const x = await gone.sample();
    expect(x.cpuCores).toBeNull();
    expect(x.rssMb).toBeNull();
  });
});
