/**
 * The profile's `load` section: the load to offer — join rate, acks, payload, warm-up and drain,
 * the steps (each step's connections, rates and scenario fields), generator processes and
 * source addresses, and reconnects.
 */
import { z } from 'zod';
import { formatDurationMs } from '../duration.js';
import { duration, meta, nonNegInt, positiveInt } from './fields.js';

/** A step's figures are per whole steady second: a step shorter than one measures nothing. */
export const MIN_STEP_DURATION_MS = 1000;
const stepDuration = duration
  .refine((ms) => ms >= MIN_STEP_DURATION_MS, {
    error: (iss) =>
      `must be at least ${formatDurationMs(MIN_STEP_DURATION_MS)}: a step is measured over whole steady seconds (got ${formatDurationMs(Number(iss.input))})`,
  })
  .meta(meta({ kind: 'duration' }));

export const stepSchema = z
  .object({
    connections: nonNegInt.describe('connections joined during this step (the sender included)'),
    send_rate: z
      .number()
      .nonnegative()
      .default(0)
      .describe('messages sent per second (all senders together)'),
    duration: stepDuration.describe(
      'steady-state duration: sends run this long once the ramp is done (at least 1s)',
    ),
    join_rate: z
      .number()
      .positive()
      .optional()
      .describe('joins per second for this step (default load.join_rate)'),
    payload_bytes: positiveInt
      .optional()
      .describe('payload size for this step (default load.payload_bytes)'),
    label: z.string().optional().describe('name of the step in reports'),
    rooms: positiveInt
      .optional()
      .describe(
        'broadcast-private, presence, mixed: number of topics (rooms); connections are spread over them',
      ),
    members: positiveInt
      .optional()
      .describe(
        'broadcast-private, presence, mixed: members per room; connections = rooms × members when both are given',
      ),
    room_send_rate: z
      .number()
      .nonnegative()
      .optional()
      .describe(
        'broadcast-private, mixed: messages per second per room, spread across its members (replaces send_rate)',
      ),
    update_share: z
      .number()
      .min(0)
      .optional()
      .describe(
        'presence, mixed: share of members sending a presence update each second (0.1 = 10 %)',
      ),
    insert_rate: z
      .number()
      .nonnegative()
      .optional()
      .describe('postgres-changes, mixed: rows inserted per second'),
    filtered: z
      .boolean()
      .optional()
      .describe(
        'postgres-changes, mixed: subscribe with a filter on the room (default: no filter)',
      ),
    components: z
      .array(z.enum(['broadcast', 'presence', 'postgres-changes']))
      .min(1)
      .optional()
      .describe(
        "mixed: the traffic this step carries (default all three); a step with one component is that component's solo run, which later mixed steps compare against",
      ),
  })
  .strict();

export const reconnectSchema = z
  .object({
    enabled: z
      .boolean()
      .default(false)
      .describe('reconnect connections whose join failed or that were dropped'),
    initial_backoff: duration.default(1_000).describe('wait before the first reconnect'),
    max_backoff: duration.default(30_000).describe('longest wait between reconnects'),
    multiplier: z.number().min(1).default(2).describe('backoff growth per attempt'),
    jitter: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe(
        'share of the backoff randomised (0.5: backoff × [0.5, 1.5)), so rejected clients do not return together',
      ),
    max_attempts: nonNegInt.default(5).describe('reconnect attempts per connection and step'),
  })
  .strict();

export const loadSchema = z
  .object({
    join_rate: z
      .number()
      .positive()
      .default(50)
      .describe('connections opened and joined per second (seed 002: 50/s)'),
    self: z.boolean().default(false).describe('does the sender receive its own messages'),
    ack: z
      .boolean()
      .default(false)
      .describe('ask the server to acknowledge every broadcast (supabase dialect)'),
    ack_timeout: duration
      .default(10_000)
      .describe(
        'an acked send with no answer this long after it was written counts as unacked (a step with any is not stable); acks still pending when the step ends count the same',
      ),
    payload_bytes: positiveInt
      .default(64)
      .describe('size of each message payload in bytes, stamp included'),
    warmup: duration.default(0).describe('time after the ramp before measuring'),
    drain: duration
      .default(10_000)
      .describe('after the last send, wait up to this long for messages in flight'),
    settle: duration
      .default(1_000)
      .describe('a quiet period that ends the drain early once everything expected arrived'),
    steps: z
      .array(stepSchema)
      .min(1)
      .describe('the load levels, run in order on the same connections'),
    workers: z
      .union([positiveInt, z.literal('auto')])
      .default('auto')
      .describe('generator processes; auto: one per 15,000 connections'),
    source_addresses: z
      .array(z.string())
      .optional()
      .describe('local addresses to spread connections over; auto on loopback targets'),
    late_threshold: duration
      .default(5)
      .describe('a send or join this much later than scheduled counts as late'),
    reconnect: reconnectSchema
      .optional()
      .describe(
        'reconnect with backoff and jitter after a failed join or a drop (join-rate scenarios)',
      ),
  })
  .strict();
