import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { deriveClockTicks, derivePageBytes, kernelUnits } from '../../src/monitor/sysconf.js';

const getconf = (name: string): number | null => {
  try {
    return Number(execFileSync('getconf', [name], { encoding: 'utf8' }).trim());
  } catch {
    return null;
  }
};

describe('kernel units', () => {
  it('derives from /proc the page size and USER_HZ sysconf reports', () => {
    const page = getconf('PAGESIZE');
    const hz = getconf('CLK_TCK');
    expect(derivePageBytes()).toBe(page ?? derivePageBytes());
    expect(deriveClockTicks()).toBe(hz ?? deriveClockTicks());
    const u = kernelUnits();
    expect(u.pageBytes).toBe(derivePageBytes());
    expect(u.clockTicksPerS).toBe(deriveClockTicks());
    expect(u.source).toBe(page !== null ? 'getconf' : 'derived from /proc');
  });
});
