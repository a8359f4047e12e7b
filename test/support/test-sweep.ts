/**
 * A search run in this process for a known-answer test: runSweep into `dir` with the report
 * artefacts written, its log on stderr under SWEEP_DEBUG, and one line of every step's driver
 * value, verdict and first reason, for the assertions' messages.
 */
import { runArtifactHooks } from '../../src/artefacts/render.js';
import type { Profile } from '../../src/profile/schema.js';
import type { StepResult } from '../../src/result/result.js';
import { runSweep } from '../../src/sweep/sweep.js';

export async function runTestSweep(
  profile: Profile,
  dir: string,
  driverOf: (s: StepResult) => unknown,
): Promise<Awaited<ReturnType<typeof runSweep>> & { verdicts: string }> {
  const outcome = await runSweep({
    profile,
    profilePath: null,
    redactedProfile: {},
    outDir: dir,
    log: (l) => process.env.SWEEP_DEBUG && console.error(l),
    ...runArtifactHooks(),
  });
  const verdicts = outcome.result.steps
    .map((s) => `${String(driverOf(s))}: ${s.verdict} ${s.verdict_reasons[0] ?? ''}`)
    .join('; ');
  return { ...outcome, verdicts };
}
