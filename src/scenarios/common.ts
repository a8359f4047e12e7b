/**
 * Pieces every scenario plan shares.
 */
import { REALTIME_TOPIC_PREFIX } from '../protocol/constants.js';
import type { Profile, Step } from '../profile/schema.js';
import type { ReconnectPolicy } from './types.js';

export function reconnectPolicy(profile: Profile): ReconnectPolicy | null {
  const r = profile.load.reconnect;
  if (!r?.enabled) return null;
  return {
    initialBackoffMs: r.initial_backoff,
    maxBackoffMs: r.max_backoff,
    multiplier: r.multiplier,
    jitter: r.jitter,
    maxAttempts: r.max_attempts,
  };
}

/** Messages in a steady window of `durationMs` at `ratePerS`. */
export function countAt(ratePerS: number, durationMs: number): number {
  return Math.floor((ratePerS * durationMs) / 1000);
}

// ---------------------------------------------------------------- private channels and rooms
// (broadcast-private, join-rate)

/**
 * A private topic on the wire: `realtime:<private.topic_prefix><name>` (docs/PROTOCOL.md §3.1, §6).
 */
export function privateTopic(profile: Profile, name: string): string {
  return `${REALTIME_TOPIC_PREFIX}${profile.private.topic_prefix}${name}`;
}

/**
 * Claims of connection `conn`'s own access_token: one user per connection (docs/METHOD.md §2, §4).
 */
export function userClaims(profile: Profile, conn: number): Record<string, unknown> {
  return { role: profile.private.role, sub: `${profile.private.sub_prefix}${conn}` };
}

export interface RoomTopology {
  rooms: number;
  members: number;
  /** rooms × members: the connections the step holds. */
  connections: number;
}

/**
 * Rooms × members of a step (schema: "connections = rooms × members when both are given").
 * With one of them, the other is what the step's connections allow (whole rooms only);
 * with neither, one room holds every connection.
 */
export function roomTopology(s: Step): RoomTopology {
  let rooms: number;
  let members: number;
  if (s.rooms !== undefined && s.members !== undefined) {
    rooms = s.rooms;
    members = s.members;
  } else if (s.rooms !== undefined) {
    rooms = s.rooms;
    members = Math.floor(s.connections / s.rooms);
  } else if (s.members !== undefined) {
    members = s.members;
    rooms = Math.floor(s.connections / s.members);
  } else {
    rooms = s.connections > 0 ? 1 : 0;
    members = s.connections;
  }
  if (rooms === 0 || members === 0) return { rooms: 0, members: 0, connections: 0 };
  return { rooms, members, connections: rooms * members };
}
