import { describe, expect, it } from 'vitest';
import { profileFrom } from '../support/profiles.js';
import { presenceQuota, quotaArithmetic } from '../../src/figures/extra-presence.js';

const profile = (steps: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  profileFrom({ name: 'presence-test', scenario: 'presence', load: { steps }, ...extra });

describe('§5 quota arithmetic', () => {
  it('quota ÷ members is the update rate a topic may have (the seed table at 1,000/s)', () => {
    const allowed = (m: number) =>
      quotaArithmetic({ rooms: 1, members: m }, 0, 1000).allowed_topic_updates_per_s;
    expect([8, 200, 1000, 10_000].map(allowed)).toEqual([125, 5, 1, 0.1]);
  });

  it('members² × update rate over every topic is what the quota must cover (seed §5: 8 members, 16,000 connections, 10 %)', () => {
    const q = quotaArithmetic({ rooms: 2000, members: 8 }, 0.1, 10_000);
    expect(q.needed_per_s).toBeCloseTo(12_800);
    expect(q.topic_updates_per_s).toBeCloseTo(0.8);
    expect(q.allowed_topic_updates_per_s).toBe(1250);
    expect(
      quotaArithmetic({ rooms: 1, members: 8 }, 0.1, null).allowed_topic_updates_per_s,
    ).toBeNull();
  });

  it("the quota: declared in analysis, else the built-in server's config, else unknown", () => {
    const steps = [{ connections: 8, duration: 1 }];
    expect(
      presenceQuota(profile(steps, { analysis: { presence_quota_per_s: 10_000 } }), false),
    ).toBe(10_000);
    expect(
      presenceQuota(
        profile(steps, { target: { server: { config: { max_presence_events_per_second: 500 } } } }),
        true,
      ),
    ).toBe(500);
    expect(
      presenceQuota(
        profile(steps, { target: { server: { config: { supabase_defaults: true } } } }),
        true,
      ),
    ).toBe(1000);
    // The built-in server enforces none by default.
    expect(presenceQuota(profile(steps), true)).toBeNull();
    expect(
      presenceQuota(
        profile(steps, { target: { server: { config: { max_presence_events_per_second: 500 } } } }),
        false,
      ),
    ).toBeNull();
  });
});
