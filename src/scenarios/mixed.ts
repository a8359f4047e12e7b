/**
 * Mixed load (docs/METHOD.md §6: under mixed load with broadcast and Presence, change latency
 * degrades about 5.8 times):
 * broadcast, presence and Postgres Changes on the same connections, each step carrying the
 * `components` it names. Every connection joins its room's topic with presence on (tracked at
 * join) and a postgres_changes binding, whatever the step carries, so the solo steps and the
 * mixed step run on identical connections and differ only in traffic:
 *
 *  - broadcast: `room_send_rate` per room (or `send_rate` over all rooms), every member sending
 *    in turn; expected = room members at the send − the sender (unless load.self);
 *  - presence: `update_share` of the members update each second; expected = room members, the
 *    tracker included (its own presence_diff comes back to it, see presence.ts);
 *  - postgres-changes: rows at `insert_rate` in rounds (see postgres-changes.ts); expected =
 *    confirmed subscribers of the row's membership.
 *
 * A step with one component is that component's solo run; a later step with several reports
 * each component's latency beside its latest solo step's (MixedExtra.components, made by
 * figures/extra-mixed.ts).
 */
import type { Profile, Step } from '../profile/schema.js';
import type { MixedComponent } from '../result/extra.js';
import {
  changeRows,
  changesBinding,
  changesKey,
  changesPerRound,
  subscriberClaims,
} from './changes.js';
import { countAt, reconnectPolicy } from './common.js';
import { roomLayout, roomTopic, rotatingSender, type RoomLayout } from './rooms.js';
import { DEFAULT_UPDATE_SHARE } from './presence.js';
import { KIND_STRIDE } from '../measure/stream-id.js';
import {
  kindOfStream,
  kindStream,
  type Scenario,
  type StepPlan,
  type TrafficKind,
} from './types.js';

export type MixedComponentName = MixedComponent['name'];
export const MIXED_COMPONENTS: readonly MixedComponentName[] = [
  'broadcast',
  'presence',
  'postgres-changes',
];

/** The traffic kind each component's messages are. */
export const KIND_OF: Record<MixedComponentName, TrafficKind> = {
  broadcast: 'broadcast',
  presence: 'presence',
  'postgres-changes': 'changes',
};

/** What a mixed step carries: its components and the rate of each (0 for one it leaves out). */
interface MixedRates {
  components: MixedComponentName[];
  has(c: MixedComponentName): boolean;
  roomSendRate: number;
  broadcastPerS: number;
  share: number;
  updatesPerS: number;
  insertRatePerS: number;
}

function mixedRates(s: Step, layout: RoomLayout): MixedRates {
  const components = MIXED_COMPONENTS.filter((c) => (s.components ?? MIXED_COMPONENTS).includes(c));
  const has = (c: MixedComponentName) => components.includes(c);
  const roomSendRate = s.room_send_rate ?? s.send_rate / layout.rooms;
  const share = s.update_share ?? DEFAULT_UPDATE_SHARE;
  return {
    components,
    has,
    roomSendRate,
    broadcastPerS: has('broadcast') ? roomSendRate * layout.rooms : 0,
    share,
    updatesPerS: has('presence') ? layout.connections * share : 0,
    insertRatePerS: has('postgres-changes') ? (s.insert_rate ?? 0) : 0,
  };
}

/** The step's broadcasts and presence updates, every member sending in turn (rotatingSender). */
function connectionTraffic(
  rates: MixedRates,
  layout: RoomLayout,
  durationMs: number,
): Pick<StepPlan, 'broadcasts' | 'presence'> {
  const rotating = (kind: TrafficKind) => (k: number) => {
    const r = rotatingSender(k, layout);
    return { conn: r.conn, stream: kindStream(kind, r.conn), seq: r.seq };
  };
  const { broadcastPerS, updatesPerS } = rates;
  return {
    broadcasts:
      broadcastPerS > 0 && layout.connections > 0
        ? {
            ratePerS: broadcastPerS,
            count: countAt(broadcastPerS, durationMs),
            senderOf: rotating('broadcast'),
          }
        : null,
    presence:
      updatesPerS > 0
        ? {
            ratePerS: updatesPerS,
            count: countAt(updatesPerS, durationMs),
            senderOf: rotating('presence'),
          }
        : null,
  };
}

/** Who receives a local stream: a room's topic (broadcast, presence) or a changes group. */
function mixedStreamInfo(
  profile: Profile,
  topicOf: (conn: number) => string,
  filtered: boolean,
): StepPlan['streamInfo'] {
  return (local) => {
    const kind = kindOfStream(local);
    const n = local - kindStream(kind, 0);
    if (kind === 'changes')
      return { key: changesKey(n, filtered), excludeSender: false, sender: null };
    return {
      key: topicOf(n),
      excludeSender: kind === 'broadcast' && !profile.load.self,
      sender: n,
    };
  };
}

/** The kind of the step's headline figures: changes, else presence, else broadcast. */
function primaryKindOf(rates: MixedRates): TrafficKind {
  if (rates.has('postgres-changes')) return 'changes';
  return rates.has('presence') ? 'presence' : 'broadcast';
}

export function planMixed(profile: Profile, step: number): StepPlan {
  const s = profile.load.steps[step];
  const layout = roomLayout(s, step);
  const { connections, rooms, members } = layout;
  if (connections > KIND_STRIDE)
    throw new Error(
      `load.steps.${step}: mixed holds at most ${KIND_STRIDE} connections per step (one stream per sender)`,
    );
  const rates = mixedRates(s, layout);
  const { components, has } = rates;
  const filtered = s.filtered ?? false;
  const durationMs = s.duration;
  const joinRatePerS = s.join_rate ?? profile.load.join_rate;
  const payloadBytes = s.payload_bytes ?? profile.load.payload_bytes;
  const roomOf = (conn: number) => Math.floor(conn / members);
  const topicOf = (conn: number) => roomTopic(profile, roomOf(conn));
  const inserts =
    connections > 0
      ? changeRows(profile, {
          ratePerS: rates.insertRatePerS,
          durationMs,
          rooms,
          filtered,
          streamOf: (n) => kindStream('changes', n),
        })
      : null;
  const c = profile.changes;
  return {
    step,
    label: s.label ?? `${components.join(' + ')} (${rooms} × ${members})`,
    connections,
    joinRatePerS,
    durationMs,
    payloadBytes,
    topicOf,
    joinConfigOf: (conn) => ({
      private: false,
      presenceKey: `member-${conn}`,
      presenceEnabled: true,
      presenceTrackOnJoin: true,
      postgresChanges: [changesBinding(profile, roomOf(conn), filtered)],
    }),
    userClaimsOf: (conn) => subscriberClaims(profile, conn),
    changesKeyOf: (conn) => changesKey(roomOf(conn), filtered),
    ...connectionTraffic(rates, layout, durationMs),
    inserts,
    streamInfo: mixedStreamInfo(profile, topicOf, filtered),
    primaryKind: primaryKindOf(rates),
    reconnect: reconnectPolicy(profile),
    // The components a step carries do not change what connections join: solo and mixed steps
    // share them.
    topology: `mixed:${members}:${filtered}:${c.schema}.${c.table}:${c.event}`,
    params: {
      connections,
      send_rate: rates.broadcastPerS,
      duration_s: durationMs / 1000,
      join_rate: joinRatePerS,
      payload_bytes: payloadBytes,
      components: components.join('+'),
      topics: rooms,
      members_per_topic: members,
      room_send_rate: has('broadcast') ? rates.roomSendRate : 0,
      update_share: has('presence') ? rates.share : 0,
      insert_rate: rates.insertRatePerS,
      filtered,
      rounds: inserts ? inserts.count / changesPerRound(rooms, filtered) : 0,
    },
  };
}

export const mixed: Scenario = {
  name: 'mixed',
  seedSection: 'docs/METHOD.md §6 mixed load (CDC 2.6 s → 15 s beside broadcast and presence)',
  describe:
    "broadcast + presence + Postgres Changes on the same connections, each solo and then together: how each one's latency and delivery move against its solo run",
  plan: planMixed,
};
