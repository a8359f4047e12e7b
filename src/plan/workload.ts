/**
 * A workload: an application's expected peak, in the units of the capacity
 * table's rows, so `rtcap plan` can divide one by the other. Validated like a profile.
 */
import { z } from 'zod';

const rate = z.number().nonnegative();

export const workloadSchema = z
  .object({
    name: z.string().describe('workload name'),
    description: z.string().optional(),
    connections: z
      .object({
        public: z
          .number()
          .int()
          .nonnegative()
          .default(0)
          .describe('concurrent connections on public channels'),
        private: z
          .number()
          .int()
          .nonnegative()
          .default(0)
          .describe('concurrent connections on private (RLS) channels'),
      })
      .strict()
      .default({ public: 0, private: 0 }),
    public: z
      .object({
        messages_per_s: rate.describe('broadcasts sent per second'),
        fanout: rate.describe('subscribers each one reaches'),
      })
      .strict()
      .optional(),
    private: z.object({ messages_per_s: rate, fanout: rate }).strict().optional(),
    write_only: z
      .object({
        messages_per_s: rate.describe(
          'sends nobody receives (e.g. REST publishes to empty topics)',
        ),
      })
      .strict()
      .optional(),
    message_bytes: z.number().int().positive().optional().describe('largest message payload'),
    presence: z
      .object({
        topics: z.number().int().positive(),
        members: z.number().int().positive().describe('members of each topic'),
        updates_per_member_per_s: rate.describe('presence updates each member makes per second'),
      })
      .strict()
      .optional(),
    postgres_changes: z
      .object({ subscriptions: z.number().int().nonnegative(), changes_per_s: rate })
      .strict()
      .optional(),
    reconnect: z
      .object({ join_rate_per_s: rate.describe('joins per second in a reconnect storm') })
      .strict()
      .optional(),
    tenants: z
      .number()
      .int()
      .positive()
      .default(1)
      .describe(
        'tenants the load spreads over evenly; rows bound by one tenant (its database pool, its quota) are planned per tenant',
      ),
  })
  .strict();

export type Workload = z.output<typeof workloadSchema>;

/**
 * What a dimension asks of the servers; `shardable` false: one topic, message or tenant cannot be
 * split across instances.
 */
export interface Demand {
  id: string;
  value: number;
  shardable: boolean;
  /** How the demand was computed from the workload. */
  text: string;
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

/** The workload as a demand on each §7 row it touches (rows it does not touch are left out). */
export function demandsOf(w: Workload): Demand[] {
  const out: Demand[] = [];
  const add = (id: string, value: number, shardable: boolean, text: string) => {
    if (value > 0) out.push({ id, value, shardable, text });
  };
  add(
    'public_connections',
    w.connections.public,
    true,
    `${fmt(w.connections.public)} public connections`,
  );
  add(
    'private_connections',
    w.connections.private,
    true,
    `${fmt(w.connections.private)} private connections`,
  );
  if (w.public)
    add(
      'public_deliveries',
      w.public.messages_per_s * w.public.fanout,
      true,
      `${fmt(w.public.messages_per_s)} msg/s × fan-out ${fmt(w.public.fanout)}`,
    );
  if (w.private) {
    add(
      'private_sends',
      w.private.messages_per_s,
      true,
      `${fmt(w.private.messages_per_s)} private msg/s`,
    );
    add(
      'private_deliveries',
      w.private.messages_per_s * w.private.fanout,
      true,
      `${fmt(w.private.messages_per_s)} msg/s × fan-out ${fmt(w.private.fanout)}`,
    );
  }
  if (w.write_only)
    add(
      'write_only_sends',
      w.write_only.messages_per_s,
      true,
      `${fmt(w.write_only.messages_per_s)} sends/s without receivers`,
    );
  if (w.reconnect)
    add(
      'join_rate',
      w.reconnect.join_rate_per_s,
      true,
      `${fmt(w.reconnect.join_rate_per_s)} joins/s in a reconnect storm`,
    );
  if (w.message_bytes)
    add(
      'message_size',
      w.message_bytes,
      false,
      `largest message ${fmt(w.message_bytes)} B (one message is not split)`,
    );
  if (w.postgres_changes) {
    add(
      'cdc_subscribers',
      w.postgres_changes.subscriptions,
      false,
      `${fmt(w.postgres_changes.subscriptions)} subscriptions of one tenant (one poller, seed §6)`,
    );
    add(
      'cdc_changes',
      w.postgres_changes.changes_per_s,
      false,
      `${fmt(w.postgres_changes.changes_per_s)} changes/s of one tenant (one poller, seed §6)`,
    );
  }
  if (w.presence) {
    const p = w.presence;
    add(
      'presence_members',
      p.members,
      false,
      `${fmt(p.members)} members in one topic (a topic is not split)`,
    );
    add(
      'presence_deliveries',
      p.topics * p.members * p.members * p.updates_per_member_per_s,
      true,
      `${fmt(p.topics)} topics × ${fmt(p.members)}² members × ${fmt(p.updates_per_member_per_s)} updates/s per member (§5: members² × rate)`,
    );
  }
  return out;
}
