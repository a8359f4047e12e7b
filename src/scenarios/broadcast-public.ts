/**
 * Seed 002 §1: public broadcast. Every connection joins one topic; one sender (connection 0)
 * sends at the step's rate for the steady duration. Drivers: connections (§1.1, memory) and
 * deliveries/s = send rate × receivers (§1.2, CPU).
 */
import type { Profile } from '../profile/schema.js';
import type { Scenario, StepPlan } from './types.js';

export function planBroadcastPublic(profile: Profile, step: number): StepPlan {
  const s = profile.load.steps[step];
  const connections = s.connections;
  const sendRatePerS = s.send_rate;
  const durationMs = s.duration;
  const joinRatePerS = s.join_rate ?? profile.load.join_rate;
  const payloadBytes = s.payload_bytes ?? profile.load.payload_bytes;
  const topic = profile.target.topic;
  const messageCount = connections > 0 ? Math.floor((sendRatePerS * durationMs) / 1000) : 0;
  return {
    step,
    label: s.label ?? `${connections} conns × ${sendRatePerS} msg/s`,
    connections,
    joinRatePerS,
    sendRatePerS,
    durationMs,
    payloadBytes,
    messageCount,
    topicOf: () => topic,
    joinConfigOf: () => ({ private: false }),
    senderOf: (k) => ({ conn: 0, stream: 0, seq: k }),
    streamTopic: () => topic,
    self: profile.load.self,
    params: {
      connections,
      send_rate: sendRatePerS,
      duration_s: durationMs / 1000,
      join_rate: joinRatePerS,
      payload_bytes: payloadBytes,
      receivers: Math.max(0, profile.load.self ? connections : connections - 1),
      deliveries_per_s_target: sendRatePerS * Math.max(0, profile.load.self ? connections : connections - 1),
    },
  };
}

export const broadcastPublic: Scenario = {
  name: 'broadcast-public',
  seedSection: '§1 Broadcast over WebSocket (public)',
  describe: 'N connections on one topic, one sender at R msg/s: connections vs memory, deliveries/s vs CPU, latency and delivery',
  plan: planBroadcastPublic,
};
