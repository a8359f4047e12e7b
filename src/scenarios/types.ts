/**
 * A scenario turns a profile step into a plan every generator process can rebuild by
 * itself (deterministic, no I/O): which topic each connection joins with what config, and
 * what traffic the step carries — broadcasts and presence updates sent by connections the
 * workers hold, database inserts made by the coordinator — and who is expected to receive it.
 *
 * Every measured message belongs to a stream (one sender or loader, one membership) and has
 * a sequence number in it. Local stream ids encode the traffic kind: kind × KIND_STRIDE + n.
 */
import type { Profile } from '../profile/schema.js';
import type { StepResult } from '../result/result.js';
import { KIND_STRIDE } from '../measure/stream-id.js';

export type TrafficKind = 'broadcast' | 'presence' | 'changes';
export const TRAFFIC_KINDS: readonly TrafficKind[] = ['broadcast', 'presence', 'changes'];

export function kindStream(kind: TrafficKind, n: number): number {
  return TRAFFIC_KINDS.indexOf(kind) * KIND_STRIDE + n;
}

export function kindOfStream(localStream: number): TrafficKind {
  return TRAFFIC_KINDS[Math.floor(localStream / KIND_STRIDE)] ?? 'broadcast';
}

export interface Sender {
  /** Global connection index that sends this message. */
  conn: number;
  /** Local stream id (see kindStream). */
  stream: number;
  /** Sequence number within the stream. */
  seq: number;
}

/**
 * Messages sent by connections on the open-model schedule: message k is due at start + k / rate.
 */
export interface ConnectionTraffic {
  ratePerS: number;
  count: number;
  senderOf(k: number): Sender;
  /**
   * Any connection may send a message in its sender's place (every connection joins the same
   * topic with the same config): a run split into N segments has connection seq mod N send
   * it, so every segment has senders of its own (generator/segment).
   */
  relay?: boolean;
}

/** Rows the coordinator inserts (Postgres Changes): row k due at start + k / rate. */
export interface InsertTraffic {
  ratePerS: number;
  count: number;
  /**
   * `$1` room id, `$2` body ("stream:seq", how receivers find the message), `$3` scheduled time
   * (epoch ms).
   */
  sql: string;
  rowOf(k: number): { stream: number; seq: number; roomId: number };
}

export interface StreamInfo {
  /**
   * Membership that receives this stream: a topic, or "changes:<group>" for Postgres Changes
   * subscribers.
   */
  key: string;
  /**
   * The sender is a member but does not receive its own messages (broadcast without self).
   * Never for presence: the diff goes to every channel on the topic, the tracker's included.
   */
  excludeSender: boolean;
  /**
   * The connection that sends this stream in the one-machine plan (before any relay); null:
   * rows the coordinator inserts. Tells a receipt's sending segment (generator/segment).
   */
  sender: number | null;
}

export interface ReconnectPolicy {
  initialBackoffMs: number;
  maxBackoffMs: number;
  multiplier: number;
  /** Share of the backoff randomised: 0.5 → backoff × [0.5, 1.5). */
  jitter: number;
  maxAttempts: number;
}

export interface JoinConfig {
  private: boolean;
  presenceKey?: string;
  presenceEnabled?: boolean;
  /**
   * Track a presence right after the join, as realtime-js apps do (subscribe, then track): the
   * topic's presence_state grows with its members and each join fans a diff out
   * (docs/METHOD.md §5). The meta carries no stamp, so it is never counted as a measured update.
   */
  presenceTrackOnJoin?: boolean;
  postgresChanges?: Array<{ event: string; schema: string; table: string; filter?: string }>;
}

export interface StepPlan {
  step: number;
  label: string;
  /** Connections held during this step (senders included). */
  connections: number;
  joinRatePerS: number;
  durationMs: number;
  payloadBytes: number;
  topicOf(conn: number): string;
  /** Channel options of the join (Supabase config) for connection `conn`. */
  joinConfigOf(conn: number): JoinConfig;
  /**
   * Claims of a per-connection access_token (private channels, RLS); null or absent: the socket's
   * token.
   */
  userClaimsOf?(conn: number): Record<string, unknown> | null;
  /** Membership key of a connection's Postgres Changes subscription, when it has one. */
  changesKeyOf?(conn: number): string | null;
  broadcasts: ConnectionTraffic | null;
  presence: ConnectionTraffic | null;
  inserts: InsertTraffic | null;
  streamInfo(localStream: number): StreamInfo;
  /** The kind the step's headline figures (delivery, latency) are about. */
  primaryKind: TrafficKind;
  reconnect: ReconnectPolicy | null;
  /**
   * What the connections join (topics and join configs), as a key. A step whose key differs
   * from the previous step's closes every connection and opens them again, because a
   * connection keeps the topic and config it joined with. Absent: connections are reused.
   */
  topology?: string;
  params: StepResult['params'];
}

export interface Scenario {
  name: string;
  /** The section of the method this scenario regenerates (docs/METHOD.md). */
  seedSection: string;
  describe: string;
  /** The step's plan; its figures of its own (StepResult.extra) are figures/extras.ts. */
  plan(profile: Profile, step: number): StepPlan;
}
