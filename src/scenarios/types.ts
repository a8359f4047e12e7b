/**
 * A scenario turns a profile step into a plan every generator process can rebuild by
 * itself (deterministic, no I/O): which topic each connection joins with what payload, and
 * which connection sends message k of the step.
 */
import type { Profile } from '../profile/schema.js';
import type { StepResult } from '../report/result.js';

export interface Sender {
  /** Global connection index that sends this message. */
  conn: number;
  /** Stream local to the step: one per sender and topic. */
  stream: number;
  /** Sequence number within the stream. */
  seq: number;
}

export interface StepPlan {
  step: number;
  label: string;
  /** Connections held during this step (senders included). */
  connections: number;
  joinRatePerS: number;
  sendRatePerS: number;
  durationMs: number;
  payloadBytes: number;
  /** Messages scheduled in the steady window. */
  messageCount: number;
  topicOf(conn: number): string;
  /** Channel options of the join (Supabase config) for connection `conn`. */
  joinConfigOf(conn: number): JoinConfig;
  senderOf(k: number): Sender;
  streamTopic(stream: number): string;
  /** Does a sender receive its own messages. */
  self: boolean;
  params: StepResult['params'];
}

export interface JoinConfig {
  private: boolean;
  presenceKey?: string;
  presenceEnabled?: boolean;
  postgresChanges?: Array<{ event: string; schema: string; table: string; filter?: string }>;
}

export interface Scenario {
  name: string;
  /** The seed-002 section this scenario regenerates. */
  seedSection: string;
  describe: string;
  plan(profile: Profile, step: number): StepPlan;
}
