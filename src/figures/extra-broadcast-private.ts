/**
 * docs/METHOD.md §2 private broadcast's figures (StepResult.extra): the topology, joins and sends
 * refused by RLS, the join reply latency.
 */
import type { BroadcastPrivateExtra } from '../result/extra.js';
import { stepErrors } from './errors.js';
import { joinReplyHistogram, latencySummary } from './extra-common.js';
import type { StepContext } from './step-context.js';

export function broadcastPrivateExtra(ctx: StepContext): BroadcastPrivateExtra {
  const p = ctx.plan.params;
  let denied = 0;
  // RLS refusals of joins; a refused write is dropped without a reply (docs/PROTOCOL.md §4.1), so
  // it shows as lost.
  for (const [reason, n] of stepErrors(ctx.collected))
    if (reason.includes('Unauthorized: ')) denied += n;
  return {
    rooms: Number(p.rooms),
    members_per_room: Number(p.members),
    room_send_rate_per_s: Number(p.room_send_rate),
    auth_denied: denied,
    // Not measurable from the client; a server's /metrics has it (docs/PROTOCOL.md §9.2).
    auth_check_ms: null,
    join_reply_ms: latencySummary(joinReplyHistogram(ctx.collected)),
  } satisfies Required<BroadcastPrivateExtra>;
}
