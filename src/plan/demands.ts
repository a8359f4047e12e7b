/**
 * A workload as demands on the capacity table's docs/METHOD.md §7 rows: what each row's dimension
 * asks of the servers, and whether it can be spread across instances.
 */
import type { Workload } from './workload.js';

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

const demand = (id: string, value: number, shardable: boolean, text: string): Demand => ({
  id,
  value,
  shardable,
  text,
});

/** Concurrent connections, public and private. */
function connectionDemands(w: Workload): Demand[] {
  return [
    demand(
      'public_connections',
      w.connections.public,
      true,
      `${fmt(w.connections.public)} public connections`,
    ),
    demand(
      'private_connections',
      w.connections.private,
      true,
      `${fmt(w.connections.private)} private connections`,
    ),
  ];
}

/** Broadcast sends and deliveries (messages × fan-out), public, private and write-only. */
function broadcastDemands(w: Workload): Demand[] {
  const out: Demand[] = [];
  if (w.public)
    out.push(
      demand(
        'public_deliveries',
        w.public.messages_per_s * w.public.fanout,
        true,
        `${fmt(w.public.messages_per_s)} msg/s × fan-out ${fmt(w.public.fanout)}`,
      ),
    );
  if (w.private)
    out.push(
      demand(
        'private_sends',
        w.private.messages_per_s,
        true,
        `${fmt(w.private.messages_per_s)} private msg/s`,
      ),
      demand(
        'private_deliveries',
        w.private.messages_per_s * w.private.fanout,
        true,
        `${fmt(w.private.messages_per_s)} msg/s × fan-out ${fmt(w.private.fanout)}`,
      ),
    );
  if (w.write_only)
    out.push(
      demand(
        'write_only_sends',
        w.write_only.messages_per_s,
        true,
        `${fmt(w.write_only.messages_per_s)} sends/s without receivers`,
      ),
    );
  return out;
}

/** A reconnect storm's join rate and the largest message (one message is not split). */
function joinAndSizeDemands(w: Workload): Demand[] {
  const out: Demand[] = [];
  if (w.reconnect)
    out.push(
      demand(
        'join_rate',
        w.reconnect.join_rate_per_s,
        true,
        `${fmt(w.reconnect.join_rate_per_s)} joins/s in a reconnect storm`,
      ),
    );
  if (w.message_bytes)
    out.push(
      demand(
        'message_size',
        w.message_bytes,
        false,
        `largest message ${fmt(w.message_bytes)} B (one message is not split)`,
      ),
    );
  return out;
}

/** Postgres Changes of one tenant: one poller serves it (docs/METHOD.md §6), so nothing shards. */
function cdcDemands(w: Workload): Demand[] {
  const c = w.postgres_changes;
  if (!c) return [];
  return [
    demand(
      'cdc_subscribers',
      c.subscriptions,
      false,
      `${fmt(c.subscriptions)} subscriptions of one tenant (one poller, seed §6)`,
    ),
    demand(
      'cdc_changes',
      c.changes_per_s,
      false,
      `${fmt(c.changes_per_s)} changes/s of one tenant (one poller, seed §6)`,
    ),
  ];
}

/**
 * Presence: members of one topic (not split) and deliveries, members² × rate per topic
 * (docs/METHOD.md §5).
 */
function presenceDemands(w: Workload): Demand[] {
  const p = w.presence;
  if (!p) return [];
  return [
    demand(
      'presence_members',
      p.members,
      false,
      `${fmt(p.members)} members in one topic (a topic is not split)`,
    ),
    demand(
      'presence_deliveries',
      p.topics * p.members * p.members * p.updates_per_member_per_s,
      true,
      `${fmt(p.topics)} topics × ${fmt(p.members)}² members × ${fmt(p.updates_per_member_per_s)} updates/s per member (docs/METHOD.md §5: members² × rate)`,
    ),
  ];
}

/**
 * The workload as a demand on each docs/METHOD.md §7 row it touches (rows it does not touch are
 * left out).
 */
export function demandsOf(w: Workload): Demand[] {
  return [
    ...connectionDemands(w),
    ...broadcastDemands(w),
    ...joinAndSizeDemands(w),
    ...cdcDemands(w),
    ...presenceDemands(w),
  ].filter((d) => d.value > 0);
}
