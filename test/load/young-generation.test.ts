/**
 * The capped young generation is for runs that only hold connections: decided
 * from the real scenario plans of shipped profiles, never for a step with traffic.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  idleOnly,
  IDLE_MAX_SEMI_SPACE_MB,
  youngGenerationArgs,
} from '../../src/load/young-generation.js';
import { loadProfile } from '../../src/profile/load.js';
import { getScenario } from '../../src/scenarios/index.js';
import type { StepPlan } from '../../src/scenarios/types.js';

async function plansOf(file: string, sets: string[] = []): Promise<StepPlan[]> {
  const { profile } = await loadProfile(resolve(import.meta.dirname, '../../profiles', file), {
    sets,
  });
  return profile.load.steps.map((_, i) => getScenario(profile.scenario).plan(profile, i));
}

describe('young generation of the generator processes', () => {
  it('is capped for the 50,000 idle connections profile: no step sends', async () => {
    const plans = await plansOf('connections-50k.yaml');
    expect(idleOnly(plans)).toBe(true);
    expect(youngGenerationArgs(plans, false)).toEqual([
      `--max-semi-space-size=${IDLE_MAX_SEMI_SPACE_MB}`,
    ]);
  });

  it('is left at the default for a sweep, whose next step is decided as it goes', async () => {
    expect(youngGenerationArgs(await plansOf('connections-50k.yaml'), true)).toEqual([]);
  });

  it('is left at the default when any step has traffic: broadcasts, one step of several, presence, inserts', async () => {
    const oneSends = await plansOf('connections-50k.yaml', ['load.steps.0.send_rate=1']);
    expect(youngGenerationArgs(oneSends, false)).toEqual([]);
    for (const file of [
      'broadcast-public-quick.yaml',
      'presence-quick.yaml',
      'postgres-changes-quick.yaml',
      'mixed-quick.yaml',
      'broadcast-private-quick.yaml',
    ]) {
      expect({ file, idle: idleOnly(await plansOf(file)) }).toEqual({ file, idle: false });
    }
  });

  it('is left at the default for presence tracked on join and Postgres Changes subscriptions, even with no rate', async () => {
    const presence = await plansOf('presence-quick.yaml');
    const quiet = presence.map((p) => ({ ...p, broadcasts: null, presence: null, inserts: null }));
    expect(quiet.some((p) => p.joinConfigOf(0).presenceTrackOnJoin)).toBe(true);
    expect(idleOnly(quiet)).toBe(false);
    expect(
      idleOnly(
        quiet.map((p) => ({
          ...p,
          joinConfigOf: (c: number) => ({ ...p.joinConfigOf(c), presenceTrackOnJoin: false }),
        })),
      ),
    ).toBe(true);
  });
});
