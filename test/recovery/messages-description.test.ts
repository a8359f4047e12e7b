/**
 * The profile's `sweep.recovery.probe` and `sweep.recovery.messages` say what a recovery probe's
 * round trip is for every scenario, as recovery/paths probePathOf decides it: each schema
 * description names each scenario with the path its probe takes (docs/PROFILE.md is generated
 * from them).
 */
import { describe, expect, it } from 'vitest';
import { recoverySchema } from '../../src/profile/schema/sweep.js';
import { SCENARIOS } from '../../src/profile/schema/scenarios.js';
import { probePathOf, type ProbePath } from '../../src/recovery/paths.js';
import { profileFrom } from '../support/profiles.js';

const FIELDS = ['probe', 'messages'] as const;

/** The clause of a description that names `scenario` ("a, b: what their probe does"). */
function clauseIn(description: string, scenario: string): string {
  const clauses = description.slice(description.indexOf('—') + 1).split(';');
  const named = clauses.filter((c) =>
    c
      .split(':')[0]
      .split(',')
      .map((n) => n.trim())
      .includes(scenario),
  );
  expect(named, `no clause names ${scenario}: ${description}`).toHaveLength(1);
  return named[0];
}

/** What the description must say of a path. */
function wordsOf(path: ProbePath): string {
  switch (path.kind) {
    case 'broadcast':
      return path.topic
        ? 'a broadcast to itself (self) on the bench topic'
        : 'a broadcast to itself on a topic of its own';
    case 'presence':
      return 'a track on a presence topic of its own';
    case 'postgres-changes':
      return 'an insert and its change event';
    case 'join':
      return 'one private join of a topic of its own';
  }
}

describe.each(FIELDS)('sweep.recovery.%s', (field) => {
  const description = recoverySchema.shape[field].description ?? '';
  const clauseOf = (scenario: string) => clauseIn(description, scenario);

  it.each(SCENARIOS)('names the probe path of %s as recovery/paths takes it', (scenario) => {
    const profile = profileFrom({
      name: 'd',
      scenario,
      load: { steps: [{ connections: 10, send_rate: 1, duration: '1s' }] },
    });
    const withDb = probePathOf(profile, 'postgres://127.0.0.1:1/x');
    expect(clauseOf(scenario)).toContain(wordsOf(withDb));
    // Without a database to insert into, the probe falls back as the clause says.
    const withoutDb = probePathOf(profile, null);
    if (withoutDb.kind !== withDb.kind)
      expect(clauseOf(scenario)).toContain(`without target.database_url, ${wordsOf(withoutDb)}`);
  });
});
