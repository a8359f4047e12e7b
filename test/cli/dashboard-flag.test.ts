/** `--dashboard [PORT]`: the port it takes, and observers that cannot stop a run. */
import { describe, expect, it } from 'vitest';
import { dashboardPort, observeAll } from '../../src/cli/dashboard-flag.js';
import type { RunObserver } from '../../src/run/runner.js';
import type { SecondRecord } from '../../src/figures/timeline.js';

describe('dashboardPort', () => {
  it('takes nothing as any free port, a number as that port, and refuses the rest naming the flag', () => {
    expect(dashboardPort('')).toBe(0);
    expect(dashboardPort('0')).toBe(0);
    expect(dashboardPort('5665')).toBe(5665);
    expect(dashboardPort('65536')).toBe(
      '--dashboard 65536: must be a port number (0-65535), or nothing for any free port',
    );
    expect(dashboardPort('profile.yaml')).toMatch(
      /^--dashboard profile\.yaml: must be a port number/,
    );
    expect(dashboardPort('-1')).toMatch(/^--dashboard -1: /);
  });
});

describe('observeAll', () => {
  it('is the one observer when there is one, and calls every observer even when one throws', () => {
    const seen: string[] = [];
    const ok: RunObserver = {
      second: () => seen.push('second'),
      step: () => seen.push('step'),
      start: () => seen.push('start'),
    };
    const bad: RunObserver = {
      second: () => {
        throw new Error('page gone');
      },
      step: () => {
        throw new Error('page gone');
      },
    };
    expect(observeAll([undefined, ok])).toBe(ok);
    expect(observeAll([undefined])).toBeUndefined();
    const both = observeAll([bad, ok])!;
    both.start?.({} as never);
    both.second({} as SecondRecord, 1);
    both.step({} as never);
    expect(seen).toEqual(['start', 'second', 'step']);
  });
});
