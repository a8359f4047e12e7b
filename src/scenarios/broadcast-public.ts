/**
 * docs/METHOD.md §1: public broadcast. Every connection joins one topic; one sender (connection 0)
 * sends at the step's rate for the steady duration. Drivers: connections (docs/METHOD.md §1.1,
 * memory) and deliveries/s = send rate × receivers (§1.2, CPU).
 */
import type { Profile } from '../profile/schema.js';
import { countAt, reconnectPolicy } from './common.js';
import { kindStream, type Scenario, type StepPlan } from './types.js';

export function planBroadcastPublic(profile: Profile, step: number): StepPlan {
  const s = profile.load.steps[step];
  const connections = s.connections;
  const sendRatePerS = s.send_rate;
  const durationMs = s.duration;
  const joinRatePerS = s.join_rate ?? profile.load.join_rate;
  const payloadBytes = s.payload_bytes ?? profile.load.payload_bytes;
  const topic = profile.target.topic;
  const count = connections > 0 ? countAt(sendRatePerS, durationMs) : 0;
  const receivers = Math.max(0, profile.load.self ? connections : connections - 1);
  const stream = kindStream('broadcast', 0);
  return {
    step,
    label: s.label ?? `${connections} conns × ${sendRatePerS} msg/s`,
    connections,
    joinRatePerS,
    durationMs,
    payloadBytes,
    topicOf: () => topic,
    joinConfigOf: () => ({ private: false }),
    broadcasts: {
      ratePerS: sendRatePerS,
      count,
      senderOf: (k) => ({ conn: 0, stream, seq: k }),
      relay: true,
    },
    presence: null,
    inserts: null,
    streamInfo: () => ({ key: topic, excludeSender: !profile.load.self, sender: 0 }),
    primaryKind: 'broadcast',
    reconnect: reconnectPolicy(profile),
    params: {
      connections,
      send_rate: sendRatePerS,
      duration_s: durationMs / 1000,
      join_rate: joinRatePerS,
      payload_bytes: payloadBytes,
      receivers,
      deliveries_per_s_target: sendRatePerS * receivers,
    },
  };
}

export const broadcastPublic: Scenario = {
  name: 'broadcast-public',
  seedSection: 'docs/METHOD.md §1 Broadcast over WebSocket (public)',
  describe:
    'N connections on one topic, one sender at R msg/s: connections vs memory, deliveries/s vs CPU, latency and delivery',
  plan: planBroadcastPublic,
};
