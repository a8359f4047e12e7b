/**
 * Rooms of full membership for the scenarios where every member both sends and receives
 * (presence, mixed): the layout of connections over rooms, the room topics, and the turn in
 * which members send.
 */
import type { Profile, Step } from '../profile/schema.js';

export interface RoomLayout {
  connections: number;
  rooms: number;
  members: number;
}

/** Topic of room `room`: `<target.topic>-<room>`. */
export function roomTopic(profile: Profile, room: number): string {
  return `${profile.target.topic}-${room}`;
}

/**
 * Rooms × members of a step whose rooms are full: connection i is in room floor(i / members),
 * so a later step with more rooms of the same size keeps every earlier connection where it
 * is. `connections` must equal rooms × members (a partial room would make "members per topic"
 * untrue for it).
 */
export function roomLayout(step: Step, index: number): RoomLayout {
  const n = step.connections;
  const where = `load.steps.${index}`;
  if (step.rooms !== undefined && step.members !== undefined) {
    if (step.rooms * step.members !== n)
      throw new Error(
        `${where}: connections (${n}) must equal rooms × members (${step.rooms} × ${step.members} = ${step.rooms * step.members})`,
      );
    return { connections: n, rooms: step.rooms, members: step.members };
  }
  if (step.members !== undefined) {
    if (n % step.members !== 0)
      throw new Error(
        `${where}: connections (${n}) must be a multiple of members (${step.members})`,
      );
    return { connections: n, rooms: Math.max(1, n / step.members), members: step.members };
  }
  if (step.rooms !== undefined) {
    if (n % step.rooms !== 0)
      throw new Error(`${where}: connections (${n}) must be a multiple of rooms (${step.rooms})`);
    return { connections: n, rooms: step.rooms, members: n / step.rooms };
  }
  return { connections: n, rooms: 1, members: n };
}

/**
 * The sender of message k when every connection sends in turn: rooms interleave (k and k + 1
 * go to different rooms) and each connection sends once every rooms × members messages, i.e.
 * at rate ÷ connections. `seq` counts that connection's messages: one stream per connection,
 * because the ledger takes a seq not above the last one of a stream as a duplicate, and
 * Phoenix orders messages per sender only.
 */
export function rotatingSender(k: number, layout: RoomLayout): { conn: number; seq: number } {
  const n = layout.rooms * layout.members;
  const j = k % n;
  return {
    conn: (j % layout.rooms) * layout.members + Math.floor(j / layout.rooms),
    seq: Math.floor(k / n),
  };
}
