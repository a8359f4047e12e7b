/**
 * What rtcap puts on the wire for a dialect: the phx_join payload and the bench push.
 * supabase: Supabase join config (PROTOCOL.md §3.1) and the broadcast envelope (§4.1), sent as
 * a v2 binary kind-3 frame when the profile asks (current realtime-js does, §2.3).
 * phoenix: the profile's join payload and push event, the stamp as the whole payload.
 */
import { EV, VSN_2 } from '../protocol/constants.js';
import { StampEncoder } from '../protocol/stamp.js';
import type { Profile } from '../profile/schema.js';
import type { JoinConfig } from '../scenarios/types.js';
import type { Connection } from '../client/connection.js';

export function joinPayload(profile: Profile, cfg: JoinConfig, token: string | null): unknown {
  const t = profile.target;
  if (t.dialect === 'phoenix') return t.join_payload;
  const payload: Record<string, unknown> = {
    config: {
      broadcast: { ack: profile.load.ack, self: profile.load.self },
      presence: { key: cfg.presenceKey ?? '', enabled: cfg.presenceEnabled ?? false },
      postgres_changes: cfg.postgresChanges ?? [],
      private: cfg.private,
    },
  };
  if (token) payload.access_token = token;
  return payload;
}

export function usesBinaryBroadcast(profile: Profile): boolean {
  const t = profile.target;
  if (t.dialect !== 'supabase' || t.vsn !== VSN_2) return false;
  return t.binary_broadcast ?? true;
}

export class BenchSender {
  private readonly encoder: StampEncoder;
  private readonly binary: boolean;
  private readonly dialect: 'supabase' | 'phoenix';
  private readonly pushEvent: string;
  private readonly userEvent: string;
  private readonly ack: boolean;

  constructor(profile: Profile, payloadBytes: number) {
    this.encoder = new StampEncoder(payloadBytes);
    this.binary = usesBinaryBroadcast(profile);
    this.dialect = profile.target.dialect;
    this.pushEvent = profile.target.push_event;
    this.userEvent = profile.target.broadcast_event;
    this.ack = profile.load.ack && profile.target.dialect === 'supabase';
  }

  /** Sends one stamped message; false when the connection cannot send. */
  send(c: Connection, topic: string, stream: number, seq: number, schedMs: number): boolean {
    const stamp = this.encoder.payload(seq, stream, schedMs);
    if (this.dialect === 'phoenix') return c.push(topic, this.pushEvent, stamp, false);
    if (this.binary) return c.push(topic, EV.broadcast, null, this.ack, { userEvent: this.userEvent, inner: stamp });
    return c.push(topic, EV.broadcast, { type: 'broadcast', event: this.userEvent, payload: stamp }, this.ack);
  }
}
