import { describe, expect, it } from 'vitest';
import { changesSchema, privateSchema, SCENARIOS } from '../../../src/profile/schema/scenarios.js';

describe('scenario sections', () => {
  it('eight scenarios; private and changes defaults', () => {
    expect(SCENARIOS).toHaveLength(8);
    expect(privateSchema.parse({})).toEqual({
      topic_prefix: 'room-',
      role: 'authenticated',
      sub_prefix: 'user-',
    });
    expect(changesSchema.parse({})).toMatchObject({
      schema: 'public',
      table: 'bench_messages',
      event: 'INSERT',
      claims: { rooms: '*' },
    });
  });
});
