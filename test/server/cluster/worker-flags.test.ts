import { describe, expect, it } from 'vitest';
import { profilerFlags } from '../../../src/server/cluster/worker-flags.js';

describe('profilerFlags', () => {
  it('passes the CPU and heap profilers on, with their values in either form', () => {
    expect(
      profilerFlags([
        '--cpu-prof',
        '--cpu-prof-dir=/p',
        '--cpu-prof-interval',
        '500',
        '--heap-prof',
        '--heap-prof-dir',
        '/h',
      ]),
    ).toEqual([
      '--cpu-prof',
      '--cpu-prof-dir=/p',
      '--cpu-prof-interval',
      '500',
      '--heap-prof',
      '--heap-prof-dir',
      '/h',
    ]);
  });

  it('keeps everything else, and the one-file names, to the primary', () => {
    expect(
      profilerFlags([
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        'await main()',
        '--cpu-prof-name=x.cpuprofile',
        '--heap-prof-name',
        'y.heapprofile',
        '--max-old-space-size=4096',
      ]),
    ).toEqual([]);
  });

  it('does not take a missing value from past the end', () => {
    expect(profilerFlags(['--cpu-prof', '--cpu-prof-dir'])).toEqual(['--cpu-prof']);
  });
});
