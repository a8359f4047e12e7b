/**
 * What rtcap puts on the wire for a dialect: the phx_join payload and the bench push.
 * supabase: Supabase join config (docs/PROTOCOL.md §3.1) and the broadcast envelope (§4.1), sent as
 * a v2 binary kind-3 frame when the profile asks (current realtime-js does, docs/PROTOCOL.md
 * §2.3).
 * phoenix: the profile's join payload and push event, the stamp as the whole payload.
 */
import { EV, VSN_2 } from '../protocol/constants.js';
import { StampEncoder } from '../protocol/stamp.js';
import type { Profile } from '../profile/schema.js';
import type { JoinConfig } from '../scenarios/types.js';
import type { Connection } from '../client/connection.js';
import { r3 } from '../util/round.js';

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
  /** Broadcasts go as v2 binary kind-3 frames. */
  readonly binary: boolean;
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

  /** The server is asked to acknowledge each send (load.ack, supabase dialect). */
  get acked(): boolean {
    return this.ack;
  }

  /**
   * Sends one stamped message; false when the connection cannot send. `ackId` names an acked send.
   */
  send(
    c: Connection,
    topic: string,
    stream: number,
    seq: number,
    schedMs: number,
    ackId?: number,
  ): boolean {
    const stamp = this.encoder.payload(seq, stream, schedMs);
    if (this.dialect === 'phoenix') return c.push(topic, this.pushEvent, stamp, false);
    if (this.binary)
      return c.push(
        topic,
        EV.broadcast,
        null,
        this.ack,
        { userEvent: this.userEvent, inner: stamp },
        undefined,
        ackId,
      );
    return c.push(
      topic,
      EV.broadcast,
      { type: 'broadcast', event: this.userEvent, payload: stamp },
      this.ack,
      undefined,
      undefined,
      ackId,
    );
  }
}

/**
 * Presence updates (docs/PROTOCOL.md §5.1): a `track` whose meta carries the stamp under keys of
 * its own (rtcap_s, rtcap_q, rtcap_t), so a presence_diff is never mistaken for a broadcast by
 * the raw-bytes scanner; the diffs are decoded on the slow path.
 */
export class PresenceSender {
  private readonly pad: string;
  constructor(payloadBytes: number) {
    const base = JSON.stringify({
      rtcap_s: 0,
      rtcap_q: 0,
      rtcap_t: 1764460000000.123,
      rtcap_p: '',
    }).length;
    this.pad = 'x'.repeat(Math.max(0, payloadBytes - base));
  }

  /**
   * `ackId` names the track's pending reply (generator/ack-tracker); 0: the reply is not awaited
   * (the pending state is full).
   */
  send(
    c: Connection,
    topic: string,
    stream: number,
    seq: number,
    schedMs: number,
    ackId = 0,
  ): boolean {
    const meta: Record<string, unknown> = { rtcap_s: stream, rtcap_q: seq, rtcap_t: r3(schedMs) };
    if (this.pad) meta.rtcap_p = this.pad;
    return this.track(c, topic, meta, ackId);
  }

  /**
   * The track an app makes right after joining (JoinConfig.presenceTrackOnJoin): no stamp, same
   * size.
   */
  sendJoin(c: Connection, topic: string, ackId = 0): boolean {
    const meta: Record<string, unknown> = { online_at: new Date().toISOString() };
    if (this.pad) meta.rtcap_p = this.pad;
    return this.track(c, topic, meta, ackId);
  }

  private track(
    c: Connection,
    topic: string,
    meta: Record<string, unknown>,
    ackId: number,
  ): boolean {
    return c.push(
      topic,
      EV.presence,
      { type: 'presence', event: 'track', payload: meta },
      ackId !== 0,
      undefined,
      'presence',
      ackId || undefined,
    );
  }
}

export interface ReadStamp {
  stream: number;
  id: number;
  sentAtMs: number;
}

/**
 * Stamps of the joins of a presence_diff (an update arrives as a join plus a leave,
 * docs/PROTOCOL.md §5.2).
 */
export function readPresenceStamps(payload: unknown): ReadStamp[] {
  const joins = (payload as { joins?: Record<string, { metas?: unknown[] }> } | null)?.joins;
  if (!joins || typeof joins !== 'object') return [];
  const out: ReadStamp[] = [];
  for (const entry of Object.values(joins)) {
    for (const meta of entry?.metas ?? []) {
      const m = meta as { rtcap_s?: unknown; rtcap_q?: unknown; rtcap_t?: unknown };
      if (
        typeof m.rtcap_t === 'number' &&
        typeof m.rtcap_q === 'number' &&
        typeof m.rtcap_s === 'number'
      ) {
        out.push({ stream: m.rtcap_s, id: m.rtcap_q, sentAtMs: m.rtcap_t });
      }
    }
  }
  return out;
}

/**
 * The stamp of a Postgres change (docs/PROTOCOL.md §7.3): the loader writes `body` = "stream:seq"
 * and `sent_at` = scheduled insert time (epoch ms); commit_timestamp gives the server-side view.
 */
export function readChangeStamp(
  payload: unknown,
): (ReadStamp & { commitMs: number | null }) | null {
  const data = (
    payload as { data?: { record?: Record<string, unknown>; commit_timestamp?: unknown } } | null
  )?.data;
  const rec = data?.record;
  if (!rec || typeof rec.body !== 'string') return null;
  const m = /^(\d+):(\d+)$/.exec(rec.body);
  if (!m) return null;
  const sentAtMs = typeof rec.sent_at === 'number' ? rec.sent_at : Number(rec.sent_at);
  if (!Number.isFinite(sentAtMs)) return null;
  const commitMs =
    typeof data!.commit_timestamp === 'string' ? Date.parse(data!.commit_timestamp) : NaN;
  return {
    stream: Number(m[1]),
    id: Number(m[2]),
    sentAtMs,
    commitMs: Number.isFinite(commitMs) ? commitMs : null,
  };
}

/** The body a loader writes for message (stream, seq): what readChangeStamp reads back. */
export function changeBody(stream: number, seq: number): string {
  return `${stream}:${seq}`;
}
