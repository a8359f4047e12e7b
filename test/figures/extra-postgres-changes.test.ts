import { describe, expect, it } from 'vitest';
import { profileFrom } from '../support/profiles.js';
import { subsPoolSize } from '../../src/figures/extra-postgres-changes.js';

const profile = (steps: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  profileFrom({ name: 'cdc-test', scenario: 'postgres-changes', load: { steps }, ...extra });

describe('postgres-changes figures', () => {
  it("subs_pool_size: the built-in server's config or its default 1; unknown elsewhere", () => {
    const steps = [{ connections: 1, duration: 1 }];
    expect(
      subsPoolSize(
        profile(steps, { target: { server: { config: { subs_pool_size: 20 } } } }),
        true,
      ),
    ).toBe(20);
    expect(subsPoolSize(profile(steps), true)).toBe(1);
    expect(subsPoolSize(profile(steps), false)).toBeNull();
  });
});
