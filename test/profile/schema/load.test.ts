import { describe, expect, it } from 'vitest';
import { loadSchema, MIN_STEP_DURATION_MS } from '../../../src/profile/schema/load.js';

describe('loadSchema', () => {
  it('the defaults of the load around the steps given', () => {
    const l = loadSchema.parse({ steps: [{ connections: 10, duration: '5s' }] });
    expect(l).toMatchObject({ join_rate: 50, payload_bytes: 64, drain: 10_000, workers: 'auto' });
    expect(l.steps[0]).toMatchObject({ connections: 10, send_rate: 0, duration: 5000 });
  });

  it('a step shorter than one steady second measures nothing: refused', () => {
    const r = loadSchema.safeParse({ steps: [{ connections: 1, duration: '500ms' }] });
    expect(MIN_STEP_DURATION_MS).toBe(1000);
    expect(r.error?.issues[0].message).toMatch(/^must be at least 1s: a step is measured/);
    expect(loadSchema.safeParse({ steps: [] }).success).toBe(false);
  });
});
