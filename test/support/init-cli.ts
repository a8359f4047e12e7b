/**
 * What the tests of `rtcap init` and the run of what it wrote share
 * (test/integration/init-*.test.ts): the small steps a test shrinks a starter's to, and a refusal
 * as rtcap words one. The command line itself runs through rtcap-process.ts's rtcapCli.
 */
import { expect } from 'vitest';
import type { CliRun } from './rtcap-process.js';
import { TEST_GENERATOR_LIMITS } from './profiles.js';

/**
 * Three small steps instead of the starter's, same shape, with the generator limits of
 * test/support/profiles.ts (short steps on a shared machine: the subject is not the generator)
 * and a p95 SLO of 1 s instead of the starter's 200 ms (two-second steps beside other suites on
 * two cores: the subject is what is delivered, not a latency).
 */
export function smallSteps(connections: [number, number, number]): string[] {
  return [
    ...Object.entries(TEST_GENERATOR_LIMITS).flatMap(([k, v]) => ['--set', `generator.${k}=${v}`]),
    ...['--set', 'slo.p95_ms=1000'],
    ...connections.flatMap((n, i) => [
      '--set',
      `load.steps.${i}.connections=${n}`,
      '--set',
      `load.steps.${i}.duration=2s`,
    ]),
  ];
}

/** A refusal as rtcap words one: the exit code, one line on stderr, and what it names. */
export function expectOneLine(r: CliRun, code: number, names: string): void {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(names);
}
