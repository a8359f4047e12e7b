import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processTree, ProcTreeSampler, readProcStat } from '../../src/monitor/proc.js';

const stat = (pid: number, ppid: number, comm = 'node') => ({
  pid,
  ppid,
  comm,
  cpuTicks: 0,
  rssPages: 1,
});

describe('processTree', () => {
  it('collects the root and every descendant, not siblings', () => {
    const stats = [stat(1, 0), stat(10, 1), stat(11, 10), stat(12, 10, 'postgres'), stat(20, 1)];
    expect(
      processTree(10, stats)
        .map((s) => s.pid)
        .sort(),
    ).toEqual([10, 11, 12]);
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
  it('measures a busy child as the CPU the child itself reports, and nulls for a pid that is gone', async () => {
    // On a shared machine a busy child gets what the scheduler gives it, so the known answer is
    // the child's own process.cpuUsage(), reported every 20 ms with its wall clock.
    const script =
      'const end = Date.now() + 4000; let next = 0; while (Date.now() < end) { if (Date.now() >= next) { const u = process.cpuUsage(); process.stdout.write(Date.now() + " " + (u.user + u.system) + "\\n"); next = Date.now() + 20; } }';
    const child = spawn(process.execPath, ['-e', script]);
    const reports: Array<[number, number]> = [];
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) reports.push(l.split(' ').map(Number) as [number, number]);
    });
    const reportAt = (t: number) =>
      reports.reduce((best, r) => (Math.abs(r[0] - t) < Math.abs(best[0] - t) ? r : best));
    try {
      while (reports.length === 0) await new Promise((r) => setTimeout(r, 20));
      const s = new ProcTreeSampler(child.pid!);
      const first = await s.sample();
      expect(first.cpuCores).toBeNull(); // no interval yet: null, never 0
      await new Promise((r) => setTimeout(r, 1500));
      const second = await s.sample();
      await new Promise((r) => setTimeout(r, 100));
      const [t1, c1] = reportAt(first.t);
      const [t2, c2] = reportAt(second.t);
      const reported = (c2 - c1) / 1000 / (t2 - t1);
      expect(reported).toBeGreaterThan(0.02);
      // Ticks are 10 ms: a wrong USER_HZ would be off by 2.5× or more.
      expect(second.cpuCores! / reported).toBeGreaterThan(0.6);
      expect(second.cpuCores! / reported).toBeLessThan(1.6);
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

describe('ProcTreeSampler units', () => {
  it('counts RSS in the kernel page size it is given (a 64 KiB-page kernel reads 16× the 4 KiB figure)', async () => {
    const small = await new ProcTreeSampler(process.pid, {
      pageBytes: 4096,
      clockTicksPerS: 100,
      source: 'test',
    }).sample();
    const large = await new ProcTreeSampler(process.pid, {
      pageBytes: 65536,
      clockTicksPerS: 100,
      source: 'test',
    }).sample();
    // Both read the same tree within milliseconds; RSS may move a little between the reads.
    expect(large.rssMb! / small.rssMb!).toBeGreaterThan(14);
    expect(large.rssMb! / small.rssMb!).toBeLessThan(18);
  });
});
