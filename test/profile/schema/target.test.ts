import { describe, expect, it } from 'vitest';
import { targetSchema } from '../../../src/profile/schema/target.js';

describe('targetSchema', () => {
  it('no URL: the built-in server with its defaults', () => {
    const t = targetSchema.parse({});
    expect(t.url).toBeUndefined();
    expect(t).toMatchObject({
      vsn: '1.0.0',
      dialect: 'supabase',
      instance: { vcpus: 2, memory_mb: 4096 },
      server: { workers: 1, accept: 'round-robin', database: true },
      join_timeout: 10_000,
      heartbeat_interval: 25_000,
    });
  });

  it('a URL must be ws:// or wss://; an unknown key is refused', () => {
    expect(targetSchema.safeParse({ url: 'http://x' }).error?.issues[0].message).toBe(
      'must start with ws:// or wss://',
    );
    expect(targetSchema.safeParse({ auth: { jwt: 'x' } }).success).toBe(false);
  });
});
