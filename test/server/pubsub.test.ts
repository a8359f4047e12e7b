import { describe, expect, it } from 'vitest';
import { pubsubKey } from '../../src/server/pubsub.js';

describe('PubSub keys', () => {
  it('isolates public and private channels of the same name (§3.1)', () => {
    expect(pubsubKey('t', 'room', false)).toBe('t:room');
    expect(pubsubKey('t', 'room', true)).toBe('t-private:room');
  });
});
