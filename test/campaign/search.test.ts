/**
 * A campaign entry's `search:` over its profile's sweep section, and the budgets of a
 * campaign and its entries: parsed with their lines, merged and checked before anything runs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { campaignSchema } from '../../src/profile/campaign.js';
import { ProfileError } from '../../src/profile/errors.js';
import { sweepSchema } from '../../src/profile/schema/sweep.js';
import { parseYamlFile } from '../../src/profile/yaml-file.js';
import { entrySweep } from '../../src/campaign/search.js';
import { campaignBudgetLeftMs, entryBudgetMs } from '../../src/campaign/campaign.js';
import { planCampaign } from '../../src/campaign/state.js';
import { tempDir } from '../support/temp-dir.js';

const text = `name: s
budget: 30m
entries:
  - profile: a.yaml
    search: { driver: send_rate, start: 100, max: 6400 }
    budget: 2m
  - profile: b.yaml
    search: { max_wait: 1 }
`;

function errorOf(f: () => unknown): ProfileError {
  try {
    f();
  } catch (e) {
    return e as ProfileError;
  }
  throw new Error('no error');
}

describe('campaign file: searches and budgets', () => {
  it('reads durations into ms and names an unknown search field at its line', () => {
    const err = errorOf(() => parseYamlFile(text, campaignSchema, 'c.yaml'));
    expect(err.message).toMatch(/^c\.yaml:8:15: entries\.1\.search\.max_wait: unknown field/m);
    const c = parseYamlFile(
      text.replace('{ max_wait: 1 }', '{ recovery: { max_wait: 10s } }'),
      campaignSchema,
      'c.yaml',
    );
    expect(c.budget).toBe(1_800_000);
    expect(c.entries[0]).toMatchObject({
      budget: 120_000,
      search: { driver: 'send_rate', start: 100, max: 6400 },
    });
    expect(c.entries[1].search?.recovery?.max_wait).toBe(10_000);
    expect(planCampaign(c, '/x/c.yaml', new Date()).entries.map((e) => e.sweep)).toEqual([
      true,
      true,
    ]);
  });

  it('refuses a budget on a run (its steps are fixed) and a budget of 0, at their lines', () => {
    const err = errorOf(() =>
      parseYamlFile(
        'name: s\nbudget: 0\nentries:\n  - profile: a.yaml\n    budget: 1m\n',
        campaignSchema,
        'c.yaml',
      ),
    );
    expect(err.message).toMatch(/^c\.yaml:2:9: budget: must be longer than 0/m);
    expect(err.message).toMatch(/^c\.yaml:5:13: entries\.0\.budget: only a search/m);
  });
});

describe('entrySweep', () => {
  const dir = tempDir('rtcap-csearch-');
  const path = join(dir, 'c.yaml');

  it("lays the entry's fields over the profile's sweep section; a search drops the profile's explicit values", () => {
    writeFileSync(path, text);
    const c = parseYamlFile(
      text.replace('{ max_wait: 1 }', '{ driver: members, max: 200 }'),
      campaignSchema,
      path,
    );
    const profileSweep = sweepSchema.parse({
      driver: 'connections',
      values: [1, 2],
      resolution: 0.1,
    });
    const s = entrySweep(profileSweep, c.entries[0], 0, path);
    expect(s).toMatchObject({
      driver: 'send_rate',
      start: 100,
      max: 6400,
      resolution: 0.1,
      min_samples: 1000,
    });
    expect(s.values).toBeUndefined();
    expect(entrySweep(undefined, c.entries[1], 1, path)).toMatchObject({
      driver: 'members',
      max: 200,
      factor: 2,
      resolution: 0.05,
    });
  });

  it("names a missing driver or max, and a start above max, at the entry's line", () => {
    const t =
      'name: s\nentries:\n  - profile: a.yaml\n    search: { start: 50 }\n  - profile: b.yaml\n    search: { driver: rooms, start: 50, max: 10 }\n';
    writeFileSync(path, t);
    const c = parseYamlFile(t, campaignSchema, path);
    expect(errorOf(() => entrySweep(undefined, c.entries[0], 0, path)).message).toMatch(
      /c\.yaml:4:13: entries\.0\.search\.driver: required: the profile has no sweep/,
    );
    expect(
      errorOf(() =>
        entrySweep(
          sweepSchema.parse({ driver: 'connections', values: [1] }),
          c.entries[0],
          0,
          path,
        ),
      ).message,
    ).toMatch(/c\.yaml:4:13: entries\.0\.search\.max: required for a search/);
    expect(errorOf(() => entrySweep(undefined, c.entries[1], 1, path)).message).toMatch(
      /c\.yaml:6:37: entries\.1\.search\.start: start 50 is above max 10/,
    );
  });
});

describe('budgets', () => {
  it('gives a search its own budget within what the campaign has left, counting every attempt so far', () => {
    const c = parseYamlFile(
      text.replace('{ max_wait: 1 }', '{ driver: members, max: 200 }'),
      campaignSchema,
      'c.yaml',
    );
    const s = planCampaign(c, '/x/c.yaml', new Date());
    expect(campaignBudgetLeftMs(c, s)).toBe(1_800_000);
    s.entries[0].wall_s = 1_700;
    expect(campaignBudgetLeftMs(c, s)).toBe(100_000);
    expect(entryBudgetMs(120_000, 100_000)).toBe(100_000);
    expect(entryBudgetMs(undefined, 100_000)).toBe(100_000);
    expect(entryBudgetMs(60_000, null)).toBe(60_000);
    expect(entryBudgetMs(undefined, null)).toBeUndefined();
    expect(entryBudgetMs(60_000, -5)).toBe(0);
  });
});
