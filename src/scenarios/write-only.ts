/**
 * docs/METHOD.md §7 row 6: write only — sends with no receivers. Each connection is a sender
 * alone on its own topic (`<target.topic>-w<i>`, `self: false`), and the step's send rate is
 * spread round-robin over them, so the server takes every message and delivers none:
 * expected is 0 per message (the only member is the sender). With load.ack the server
 * acknowledges each send, which is the proof it took them (docs/PROTOCOL.md §4.1).
 *
 * The figure is the highest send rate reached across the steps and, per step, what stopped
 * it rising (stop_reason): sends that failed or were never made, acks missing, in error or
 * late, or the sender's socket filling because the server was not reading.
 */
import type { Profile } from '../profile/schema.js';
import { countAt, reconnectPolicy } from './common.js';
import { KIND_STRIDE } from '../measure/stream-id.js';
import { kindStream, type Scenario, type StepPlan } from './types.js';

export function writeOnlyTopic(profile: Profile, conn: number): string {
  return `${profile.target.topic}-w${conn}`;
}

export function planWriteOnly(profile: Profile, step: number): StepPlan {
  const s = profile.load.steps[step];
  const senders = s.connections;
  if (senders > KIND_STRIDE)
    throw new Error(
      `step ${step + 1}: ${senders} senders: each is a stream, at most ${KIND_STRIDE} per step`,
    );
  const sendRatePerS = s.send_rate;
  const durationMs = s.duration;
  const joinRatePerS = s.join_rate ?? profile.load.join_rate;
  const payloadBytes = s.payload_bytes ?? profile.load.payload_bytes;
  const count = senders > 0 ? countAt(sendRatePerS, durationMs) : 0;
  const firstStream = kindStream('broadcast', 0);
  return {
    step,
    label: s.label ?? `${sendRatePerS}/s from ${senders} senders, no receivers`,
    connections: senders,
    joinRatePerS,
    durationMs,
    payloadBytes,
    topicOf: (conn) => writeOnlyTopic(profile, conn),
    joinConfigOf: () => ({ private: false }),
    broadcasts: {
      ratePerS: sendRatePerS,
      count,
      senderOf: (k) => {
        const conn = k % senders;
        return { conn, stream: kindStream('broadcast', conn), seq: Math.floor(k / senders) };
      },
    },
    presence: null,
    inserts: null,
    streamInfo: (local) => ({
      key: writeOnlyTopic(profile, local - firstStream),
      excludeSender: !profile.load.self,
      sender: local - firstStream,
    }),
    primaryKind: 'broadcast',
    reconnect: reconnectPolicy(profile),
    params: {
      connections: senders,
      send_rate: sendRatePerS,
      duration_s: durationMs / 1000,
      join_rate: joinRatePerS,
      payload_bytes: payloadBytes,
      senders,
      receivers: profile.load.self ? 1 : 0,
      ack: profile.load.ack,
    },
  };
}

export const writeOnly: Scenario = {
  name: 'write-only',
  seedSection: 'docs/METHOD.md §7 row 6 Write only (no receivers)',
  describe:
    'senders alone on their own topics (no receivers), acknowledged sends: the highest send rate reached and what stops it',
  plan: planWriteOnly,
};
