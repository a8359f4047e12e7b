/**
 * Running a scenario end to end in a test: the runner against a target, the result and the
 * per-second timeline it wrote. Checks that hold for every step of every scenario.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Profile } from '../../src/profile/schema.js';
import type { RunResult, StepResult } from '../../src/result/result.js';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import { runBenchmark } from '../../src/run/runner.js';
import { tempDir } from './temp-dir.js';

export async function runScenario(
  profile: Profile,
): Promise<{ result: RunResult; exitCode: number; timeline: TimeseriesPoint[]; dir: string }> {
  const dir = tempDir(`rtcap-${profile.scenario}-`);
  const { result, exitCode } = await runBenchmark({
    profile,
    profilePath: null,
    redactedProfile: {},
    outDir: dir,
    log: () => undefined,
  });
  const timeline = readFileSync(join(dir, 'timeseries.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TimeseriesPoint);
  return { result, exitCode, timeline, dir };
}

/**
 * Internal consistency of a step's ledger: every connection joined and stayed, lost is
 * expected − received, nothing arrived that was not expected, and the receipts the processes
 * streamed second by second add up to what their ledgers counted (received = sum over receivers).
 */
export function expectConsistentStep(step: StepResult, timeline: readonly TimeseriesPoint[]): void {
  expect(step.connections.joined).toBe(step.connections.target);
  expect(step.connections.failed).toBe(0);
  expect(step.connections.disconnected).toBe(0);
  const m = step.messages;
  expect(m.send_failed).toBe(0);
  expect(m.lost).toBe(m.expected - m.received);
  expect(m.duplicates).toBe(0);
  expect(m.unexpected).toBe(0);
  const streamed = timeline
    .filter((p) => p.step === step.index)
    .reduce((a, p) => a + p.delivered_per_s, 0);
  expect(streamed).toBe(receivedAllKinds(step));
  expect(step.errors).toEqual({});
}

/** Receipts of every traffic kind of a step (extra.kinds when it carries several). */
export function receivedAllKinds(step: StepResult): number {
  const kinds = step.extra.kinds as Record<string, { received: number }> | undefined;
  return kinds ? Object.values(kinds).reduce((a, k) => a + k.received, 0) : step.messages.received;
}
