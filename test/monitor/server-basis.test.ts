import { describe, expect, it } from 'vitest';
import {
  basisFrom,
  basisWarning,
  cpuCount,
  cpuMaxCores,
  declaredBasis,
  memoryLimitMb,
  readServerBasis,
} from '../../src/monitor/server-basis.js';

const declared = { vcpus: 4, memory_mb: 8192 };

describe('server basis', () => {
  it('parses CPU lists, cpu.max and memory limits', () => {
    expect([cpuCount('0'), cpuCount('0-1'), cpuCount('0-1,4,6-7')]).toEqual([1, 2, 5]);
    expect([
      cpuMaxCores('max 100000'),
      cpuMaxCores('50000 100000'),
      cpuMaxCores('200000 100000'),
    ]).toEqual([null, 0.5, 2]);
    expect([
      memoryLimitMb('max', 16000),
      memoryLimitMb('1073741824\n', 16000),
      memoryLimitMb('9223372036854771712', 16000),
    ]).toEqual([null, 1024, null]);
  });

  it('takes the tighter of affinity and cgroup quota; a cgroup memory limit, else the declared memory', () => {
    expect(
      basisFrom(
        { affinityCpus: 1, cgroupCpus: null, cgroupMemoryMb: null, hostMemoryMb: 16000 },
        declared,
      ),
    ).toEqual({ vcpus: 1, memory_mb: 8192, source: 'affinity', memory_source: 'declared' });
    expect(
      basisFrom(
        { affinityCpus: 2, cgroupCpus: 0.5, cgroupMemoryMb: 512, hostMemoryMb: 16000 },
        declared,
      ),
    ).toEqual({ vcpus: 0.5, memory_mb: 512, source: 'cgroup', memory_source: 'cgroup' });
    expect(
      basisFrom(
        { affinityCpus: 2, cgroupCpus: 3, cgroupMemoryMb: null, hostMemoryMb: 16000 },
        declared,
      ).source,
    ).toBe('affinity');
    expect(
      basisFrom(
        { affinityCpus: null, cgroupCpus: null, cgroupMemoryMb: null, hostMemoryMb: 16000 },
        declared,
      ),
    ).toEqual({ ...declaredBasis(declared), memory_source: 'declared' });
  });

  it('reads /proc and the cgroup tree (v2 and v1), leaf to root, keeping the tightest limit', () => {
    const v2: Record<string, string> = {
      '/proc/7/status': 'Name:\tx\nCpus_allowed_list:\t0-3\n',
      '/proc/7/cgroup': '0::/a/b\n',
      '/sys/fs/cgroup/a/b/cpu.max': 'max 100000',
      '/sys/fs/cgroup/a/cpu.max': '150000 100000',
      '/sys/fs/cgroup/a/b/memory.max': '2147483648',
      '/sys/fs/cgroup/a/memory.max': 'max',
    };
    expect(readServerBasis(7, declared, (p) => v2[p] ?? null, 16000)).toEqual({
      vcpus: 1.5,
      memory_mb: 2048,
      source: 'cgroup',
      memory_source: 'cgroup',
    });
    const v1: Record<string, string> = {
      '/proc/8/status': 'Cpus_allowed_list:\t1\n',
      '/proc/8/cgroup': '4:memory:/m\n2:cpu,cpuacct:/\n0::/\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '-1',
      '/sys/fs/cgroup/memory/m/memory.limit_in_bytes': '9223372036854771712',
    };
    expect(readServerBasis(8, declared, (p) => v1[p] ?? null, 16000)).toEqual({
      vcpus: 1,
      memory_mb: 8192,
      source: 'affinity',
      memory_source: 'declared',
    });
    expect(readServerBasis(9, declared, () => null, 16000)).toEqual(declaredBasis(declared));
  });

  it('warns when what the server can use disagrees with the declared instance', () => {
    expect(
      basisWarning(
        { vcpus: 1, memory_mb: 8192, source: 'affinity', memory_source: 'declared' },
        declared,
      ),
    ).toBe(
      'the server can use 1 vCPU (affinity) vs 4 declared: CPU % and memory % are of what it can use',
    );
    expect(
      basisWarning(
        { vcpus: 4, memory_mb: 8192, source: 'affinity', memory_source: 'declared' },
        declared,
      ),
    ).toBeNull();
    expect(basisWarning(declaredBasis({ vcpus: 1, memory_mb: 1 }), declared)).toBeNull();
  });
});
