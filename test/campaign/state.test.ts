import { describe, expect, it } from 'vitest';
import { ProfileError } from '../../src/profile/errors.js';
import { campaignSchema } from '../../src/profile/campaign.js';
import { parseYamlFile } from '../../src/profile/yaml-file.js';
import { planCampaign, resumeState } from '../../src/campaign/state.js';
import { progressLine } from '../../src/campaign/campaign.js';

const yaml = `name: quick
entries:
  - profile: ../a-quick.yaml
  - profile: sub/b.yaml
    sweep: true
    name: b-sweep
`;

describe('campaign file', () => {
  it('parses with defaults', () => {
    const c = parseYamlFile(yaml, campaignSchema, 'c.yaml');
    expect(c.entries[0]).toEqual({ profile: '../a-quick.yaml', sweep: false, set: [] });
    expect(c.set).toEqual([]);
  });

  it('reports every problem at its line', () => {
    const bad = `name: quick
entries:
  - profile: a.yaml
    sweap: true
  - profile: b.yaml
    name: "no spaces"
`;
    let err: ProfileError | undefined;
    try {
      parseYamlFile(bad, campaignSchema, 'c.yaml');
    } catch (e) {
      err = e as ProfileError;
    }
    expect(err).toBeInstanceOf(ProfileError);
    expect(err!.message).toMatch(/^c\.yaml:4:5: entries\.0\.sweap: unknown field.*sweep/m);
    expect(err!.message).toMatch(/^c\.yaml:6:11: entries\.1\.name: .*letters, digits/m);
  });
});

describe('campaign state', () => {
  const c = parseYamlFile(yaml, campaignSchema, '/x/campaigns/c.yaml');
  const now = new Date('2026-01-01T00:00:00Z');

  it('numbers the entry directories in order and resolves profiles against the campaign file', () => {
    const s = planCampaign(c, '/x/campaigns/c.yaml', now);
    expect(s.entries.map((e) => [e.dir, e.profile, e.sweep, e.status])).toEqual([
      ['01-a-quick', '/x/a-quick.yaml', false, 'pending'],
      ['02-b-sweep', '/x/campaigns/sub/b.yaml', true, 'pending'],
    ]);
    expect(progressLine(s, s.entries[1], 75)).toBe(
      'campaign quick: entry 2/2 b-sweep (sweep) — 0 done, 1m15s elapsed',
    );
  });

  it('resumes: completed entries kept, a crashed one (still running) is interrupted; a changed campaign is refused', () => {
    const saved = planCampaign(c, '/x/campaigns/c.yaml', now);
    saved.entries[0].status = 'completed';
    saved.entries[1].status = 'running';
    const r = resumeState(
      saved,
      planCampaign(c, '/x/campaigns/c.yaml', now),
      new Date('2026-01-02T00:00:00Z'),
    );
    expect(r.entries.map((e) => e.status)).toEqual(['completed', 'interrupted']);
    expect(r.resumed_at).toEqual(['2026-01-02T00:00:00.000Z']);
    const changed = parseYamlFile(
      yaml.replace('sweep: true', 'sweep: false'),
      campaignSchema,
      'c.yaml',
    );
    expect(() =>
      resumeState(saved, planCampaign(changed, '/x/campaigns/c.yaml', now), now),
    ).toThrow(/entry 2 is b-sweep \(run\) in the campaign but b-sweep \(sweep\) in the directory/);
  });
});
