/** The profile's `quotas` section (`rtcap quotas`): the tenant quotas to check. */
import { z } from 'zod';
import { duration, positiveInt } from './fields.js';

/** Tenant quotas `rtcap quotas` checks (docs/PROTOCOL.md §8.2), with how the target counts. */
export const quotasSchema = z
  .object({
    max_concurrent_users: positiveInt
      .optional()
      .describe('transports joined to at least one channel; refusal "Too many connected users"'),
    max_joins_per_second: z
      .number()
      .positive()
      .optional()
      .describe(
        'channel joins per second (rate window); refusal "Too many joins per second" (join refused and socket closed, or HTTP 429)',
      ),
    max_events_per_second: z
      .number()
      .positive()
      .optional()
      .describe(
        'broadcast events per second: +1 per inbound broadcast, +1 per delivery; receiving channels closed with "Too many messages per second"',
      ),
    max_presence_events_per_second: z
      .number()
      .positive()
      .optional()
      .describe(
        'presence events per second: track, presence_state and presence_diff per recipient; channel closed with "Too many presence messages per second"',
      ),
    max_channels_per_client: positiveInt
      .optional()
      .describe(
        'channels joined on one socket; join refused with "ChannelRateLimitReached: Too many channels"',
      ),
    max_payload_size_in_kb: z
      .number()
      .positive()
      .optional()
      .describe(
        'broadcast payload size; a larger one is dropped, with ack answered "payload_size_exceeded" (limit: kb × 1000 + 500 bytes of JSON)',
      ),
    below: z
      .number()
      .positive()
      .lt(1)
      .default(0.8)
      .describe('"just below": this share of the declared value; no rejection allowed'),
    above: z
      .number()
      .gt(1)
      .default(1.25)
      .describe(
        '"just above": this multiple of the declared value; rejections with the expected reason required',
      ),
    tolerance: z
      .number()
      .positive()
      .max(1)
      .default(0.1)
      .describe('the measured onset must be within this share of the declared value'),
    min_offered_ratio: z
      .number()
      .positive()
      .max(1)
      .default(0.95)
      .describe(
        'a phase that offered less than this share of its target load shows nothing about that load: without a refusal to the contrary the quota is inconclusive, never pass',
      ),
    rate_tick: duration
      .default(5_000)
      .describe(
        "the target's rate counter tick (Supabase: 5 s); rtcap passes it to the built-in server it starts",
      ),
    rate_buckets: positiveInt
      .default(12)
      .describe('buckets in the rate window (Supabase: 12, a 60 s window with 5 s ticks)'),
    error_backoff: duration
      .default(5_000)
      .describe(
        "how long the target delays a refused join's reply (Supabase: 5 s; connects 2 s); phases wait this long for late refusals",
      ),
  })
  .strict();
