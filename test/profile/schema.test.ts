import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../src/profile/schema.js';

describe('profileSchema', () => {
  it('every section from its own file, with its defaults', () => {
    const p = profileSchema.parse({
      name: 'x',
      scenario: 'broadcast-public',
      load: { steps: [{ connections: 10, duration: '5s' }] },
    });
    expect(Object.keys(p).sort()).toEqual(
      [
        'analysis',
        'changes',
        'generator',
        'load',
        'name',
        'private',
        'scenario',
        'slo',
        'target',
        'thresholds',
      ].sort(),
    );
    expect(p.slo.p95_ms).toBe(200);
    expect(p.target.dialect).toBe('supabase');
  });

  it('an unknown scenario or top-level key is refused', () => {
    const base = { name: 'x', load: { steps: [{ connections: 1, duration: 1 }] } };
    expect(profileSchema.safeParse({ ...base, scenario: 'nope' }).success).toBe(false);
    expect(profileSchema.safeParse({ ...base, scenario: 'presence', extra: 1 }).success).toBe(
      false,
    );
  });
});
