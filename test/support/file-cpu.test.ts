import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuSeconds } from './file-cpu.js';

describe("a test file's CPU, from /proc/self/stat", () => {
  it('reads own and reaped children’s user + system ticks, past a command name with spaces', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
    // utime stime cutime cstime ...
    const line =
      '4242 (node (vitest 1)) S 1 4242 4242 0 -1 4194560 10 0 0 0 250 50 700 100 20 0 11';
    expect(cpuSeconds(line)).toEqual({ self: 3, children: 8 });
  });

  it("reads this process's line", () => {
    const own = cpuSeconds(readFileSync('/proc/self/stat', 'utf8'));
    expect(own.self).toBeGreaterThan(0);
    expect(own.children).toBeGreaterThanOrEqual(0);
  });
});
