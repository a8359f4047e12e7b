import { describe, expect, it } from 'vitest';
import {
  cgroupLimits,
  cgroupPaths,
  parseCpuMax,
  parseMemoryBytes,
} from '../../src/monitor/cgroup.js';

describe('cgroup limits', () => {
  it('reads v2 cpu.max and memory.max, "max" as no limit', () => {
    expect(parseCpuMax('150000 100000')).toBe(1.5);
    expect(parseCpuMax('max 100000')).toBeNull();
    expect(parseMemoryBytes(String(2 * 1024 ** 3))).toBe(2048);
    expect(parseMemoryBytes('max')).toBeNull();
  });
  it("reads v1's huge page-aligned number as no limit", () => {
    expect(parseMemoryBytes('9223372036854771712')).toBeNull();
  });
  it('maps /proc/self/cgroup lines to controller paths (v1 and the v2 unified line)', () => {
    const p = cgroupPaths('4:memory:/a/b\n2:cpu,cpuacct:/c\n0::/d\n');
    expect(p.get('memory')).toBe('/a/b');
    expect(p.get('cpu')).toBe('/c');
    expect(p.get('cpuacct')).toBe('/c');
    expect(p.get('')).toBe('/d');
  });
  it('answers on this machine without throwing (null or a positive figure)', () => {
    const l = cgroupLimits();
    for (const v of [l.cpuCores, l.memoryMb]) expect(v === null || v > 0).toBe(true);
  });
});
