import { describe, expect, it } from 'vitest';
import { demandsOf } from '../../src/plan/demands.js';
import { workloadSchema } from '../../src/plan/workload.js';

const w = (o: Record<string, unknown>) => workloadSchema.parse({ name: 't', ...o });

describe('demandsOf', () => {
  it('deliveries are messages × fan-out; presence is topics × members² × rate (§5)', () => {
    const d = demandsOf(
      w({
        public: { messages_per_s: 10, fanout: 1000 },
        presence: { topics: 100, members: 8, updates_per_member_per_s: 0.5 },
      }),
    );
    expect(d.map((x) => [x.id, x.value, x.shardable])).toEqual([
      ['public_deliveries', 10_000, true],
      ['presence_members', 8, false],
      ['presence_deliveries', 3200, true],
    ]);
  });

  it('every row a workload touches, in table order; one tenant, topic or message is not split', () => {
    const d = demandsOf(
      w({
        connections: { public: 1000, private: 500 },
        private: { messages_per_s: 20, fanout: 50 },
        write_only: { messages_per_s: 7 },
        reconnect: { join_rate_per_s: 40 },
        message_bytes: 2048,
        postgres_changes: { subscriptions: 300, changes_per_s: 12 },
      }),
    );
    expect(d.map((x) => [x.id, x.value, x.shardable])).toEqual([
      ['public_connections', 1000, true],
      ['private_connections', 500, true],
      ['private_sends', 20, true],
      ['private_deliveries', 1000, true],
      ['write_only_sends', 7, true],
      ['join_rate', 40, true],
      ['message_size', 2048, false],
      ['cdc_subscribers', 300, false],
      ['cdc_changes', 12, false],
    ]);
    expect(d.find((x) => x.id === 'private_deliveries')!.text).toBe('20 msg/s × fan-out 50');
    expect(d.find((x) => x.id === 'cdc_changes')!.text).toBe(
      '12 changes/s of one tenant (one poller, seed §6)',
    );
  });

  it('a row asked for nothing is left out', () => {
    const d = demandsOf(w({ public: { messages_per_s: 0, fanout: 100 } }));
    expect(d).toEqual([]);
  });
});
