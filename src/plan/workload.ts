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
