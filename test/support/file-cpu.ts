/**
 * vitest setup file: with RTCAP_TEST_CPU_LOG=<path> set, appends one line per test file to that
 * path: the file, its wall seconds, and the CPU seconds its worker process used meanwhile, its own
 * and that of every process it started and reaped (rtcap runs, generator processes, servers, a
 * Postgres and its backends), read from /proc/self/stat. Where the suite's CPU goes, file by
 * file, to know which files can run side by side on a 2-core machine and which cost what
 * (docs/PERFORMANCE.md "Test suite time"). Without the variable it does nothing.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const log = process.env.RTCAP_TEST_CPU_LOG;

/** This process's CPU seconds: its own (user + system) and its reaped children's. */
export function cpuSeconds(stat: string): { self: number; children: number } {
  // Fields after the command name, which is in parentheses and may hold spaces.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14-17 of the line, 12-15 after the name.
  const [utime, stime, cutime, cstime] = f.slice(11, 15).map(Number);
  const tick = 100;
  return { self: (utime + stime) / tick, children: (cutime + cstime) / tick };
}

if (log) {
  let start = { self: 0, children: 0, at: 0 };
  let file = '';
  beforeAll(() => {
    file = relative(process.cwd(), expect.getState().testPath ?? '');
    start = { ...cpuSeconds(readFileSync('/proc/self/stat', 'utf8')), at: Date.now() };
  });
  afterAll(() => {
    const end = cpuSeconds(readFileSync('/proc/self/stat', 'utf8'));
    const line = {
      file,
      wall_s: (Date.now() - start.at) / 1000,
      cpu_self_s: +(end.self - start.self).toFixed(2),
      cpu_children_s: +(end.children - start.children).toFixed(2),
      // Since the worker process started: with its imports, when it ran this file alone; a pid
      // on several lines is a shared worker (test-groups' SHARED_PROCESS): read the deltas.
      pid: process.pid,
      process_cpu_self_s: end.self,
      process_cpu_children_s: end.children,
    };
    appendFileSync(log, JSON.stringify(line) + '\n');
  });
}
