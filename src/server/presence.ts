/**
 * Presence (docs/PROTOCOL.md §5): `track`/`untrack` from channels, `presence_state` after join and
 * `presence_diff` fan-out, following Phoenix.Presence's data shape — per key a list of
 * metas, one per tracking channel, each with a `phx_ref` (and `phx_ref_prev` on update).
 *
 * State is replicated: every worker applies every presence operation (`applyRemote`) and
 * fans the resulting diff out to its own members, as Phoenix.Tracker replicates across nodes.
 */
import { randomBytes } from 'node:crypto';
import { EV, REASON } from '../protocol/constants.js';
import { errorCode } from './db-types.js';
import type { Inbound, PresenceChannel, PresenceRoom, ServerContext, TenantRoom } from './rooms.js';
import { Outgoing } from './wire.js';

type Meta = Record<string, unknown>;

interface Entry {
  presenceKey: string;
  phxRef: string;
  meta: Meta;
  /** The local channel that tracks it; null when tracked on another worker. */
  owner: PresenceChannel | null;
  /** Worker that owns the entry (0 in a single process). */
  node: number;
}

/** One presence change, as replicated between workers. */
export interface PresenceOp {
  tenantId: string;
  key: string;
  topic: string;
  node: number;
  presenceKey: string;
  /** The entry removed (leave or the old half of an update). */
  leave: { phxRef: string } | null;
  /** The entry added (track or the new half of an update). */
  join: { phxRef: string; meta: Meta } | null;
}

export interface PresenceBridge {
  forward(op: PresenceOp): void;
}

function newRef(): string {
  return `F-${randomBytes(6).toString('base64url')}`;
}

function obj(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : null;
}

export class PresenceHub implements PresenceRoom {
  /** pubsub key → phx_ref → entry. */
  private readonly topics = new Map<string, Map<string, Entry>>();
  private readonly byChannel = new Map<PresenceChannel, Entry>();
  bridge: PresenceBridge | null = null;
  node = 0;

  constructor(private readonly ctx: () => ServerContext) {}

  /**
   * `limit_presence_event`: refused while `avg > limit`, otherwise counted (docs/PROTOCOL.md §5.1,
   * §8.2).
   */
  allowEvent(tenant: TenantRoom): boolean {
    const lim = tenant.config.max_presence_events_per_second;
    if (lim !== null && tenant.presence.value > lim) return false;
    tenant.presence.add(1);
    return true;
  }

  /** The full state of a topic, grouped by key (`Phoenix.Presence.group`). */
  state(_tenant: TenantRoom, key: string): Record<string, { metas: Meta[] }> {
    const out: Record<string, { metas: Meta[] }> = {};
    const entries = this.topics.get(key);
    if (!entries) return out;
    for (const e of entries.values())
      (out[e.presenceKey] ??= { metas: [] }).metas.push({ ...e.meta, phx_ref: e.phxRef });
    return out;
  }

  /** PresenceHandler.handle (docs/PROTOCOL.md §5.1). */
  async handle(ch: PresenceChannel, f: Inbound): Promise<void> {
    const payload = obj(f.payload);
    if (!payload || typeof payload.event !== 'string') return ch.reply(f.ref, 'ok', {});
    if (!ch.takePresenceCall(Date.now())) return ch.shutdown(REASON.clientPresenceRateLimit);
    const event = payload.event.toLowerCase();
    if (event === 'untrack') {
      this.untrack(ch);
      ch.trackedJson = null;
      return ch.reply(f.ref, 'ok', {});
    }
    if (event !== 'track') return ch.reply(f.ref, 'error', {});
    if (ch.cfg.isPrivate && !(await this.authorizeTrack(ch))) return ch.reply(f.ref, 'error', {});
    if (ch.closed) return;
    const meta = payload.payload === undefined ? {} : payload.payload;
    if (!obj(meta)) return ch.reply(f.ref, 'error', { reason: REASON.presencePayloadNotMap });
    const json = JSON.stringify(meta);
    // Tracking an identical payload is a no-op that still replies ok.
    if (json === ch.trackedJson) return ch.reply(f.ref, 'ok', {});
    const kb = ch.tenant.config.max_payload_size_in_kb;
    if (kb !== null && Buffer.byteLength(json) > kb * 1000 + 500)
      return ch.shutdown(REASON.trackSizeExceeded);
    if (!this.allowEvent(ch.tenant)) return ch.shutdown(REASON.tooManyPresenceMessages);
    const wasEnabled = ch.presenceEnabled;
    this.track(ch, meta as Meta);
    ch.presenceEnabled = true;
    ch.trackedJson = json;
    ch.reply(f.ref, 'ok', {});
    // A track that enables presence never got the join-time presence_state: sync now.
    if (!wasEnabled) ch.syncPresence();
  }

  /**
   * The first track on a private channel authorises presence.read (if not done at join) and
   * presence.write.
   */
  private async authorizeTrack(ch: PresenceChannel): Promise<boolean> {
    if (ch.writePresence !== null) return ch.writePresence;
    const db = this.ctx().db;
    if (!db) return false;
    try {
      if (!ch.presenceReadChecked) {
        const read = await db.authorizeRead(ch.authContext(), { presence: true });
        ch.readPresence = read.presence;
        ch.presenceReadChecked = true;
      }
      ch.writePresence = await db.authorizeWrite(ch.authContext(), 'presence');
      return ch.writePresence;
    } catch (e) {
      this.ctx().log(
        `presence authorization on ${ch.topic} failed: ${errorCode(e) ?? (e as Error).message}`,
      );
      return false;
    }
  }

  private track(ch: PresenceChannel, meta: Meta): void {
    const prev = this.byChannel.get(ch);
    const phxRef = newRef();
    const joinMeta: Meta = prev ? { ...meta, phx_ref_prev: prev.phxRef } : { ...meta };
    const op: PresenceOp = {
      tenantId: ch.tenant.id,
      key: ch.key,
      topic: ch.topic,
      node: this.node,
      presenceKey: ch.presenceKey,
      leave: prev ? { phxRef: prev.phxRef } : null,
      join: { phxRef, meta: joinMeta },
    };
    this.apply(op, ch);
    this.bridge?.forward(op);
  }

  private untrack(ch: PresenceChannel): void {
    const prev = this.byChannel.get(ch);
    if (!prev) return;
    const op: PresenceOp = {
      tenantId: ch.tenant.id,
      key: ch.key,
      topic: ch.topic,
      node: this.node,
      presenceKey: prev.presenceKey,
      leave: { phxRef: prev.phxRef },
      join: null,
    };
    this.apply(op, ch);
    this.bridge?.forward(op);
  }

  /** A channel ended: its presence leaves. */
  leave(ch: PresenceChannel): void {
    if (this.byChannel.has(ch)) this.untrack(ch);
  }

  /** An operation from another worker. */
  applyRemote(op: PresenceOp): void {
    this.apply(op, null);
  }

  /** A worker died: everything it tracked leaves. */
  dropNode(node: number, tenantOf: (id: string) => TenantRoom | undefined): void {
    for (const [key, entries] of this.topics) {
      for (const e of [...entries.values()]) {
        if (e.node !== node || e.owner) continue;
        const tenantId = key.split(/-private:|:/, 1)[0];
        const t = tenantOf(tenantId);
        if (!t) continue;
        this.apply(
          {
            tenantId,
            key,
            topic: '',
            node,
            presenceKey: e.presenceKey,
            leave: { phxRef: e.phxRef },
            join: null,
          },
          null,
          t,
        );
      }
    }
  }

  private apply(op: PresenceOp, owner: PresenceChannel | null, tenantHint?: TenantRoom): void {
    let entries = this.topics.get(op.key);
    const leaves: Record<string, { metas: Meta[] }> = {};
    const joins: Record<string, { metas: Meta[] }> = {};
    let topic = op.topic;
    if (op.leave && entries) {
      const old = entries.get(op.leave.phxRef);
      if (old) {
        entries.delete(op.leave.phxRef);
        if (old.owner) this.byChannel.delete(old.owner);
        (leaves[old.presenceKey] ??= { metas: [] }).metas.push({
          ...old.meta,
          phx_ref: old.phxRef,
        });
      }
    }
    if (op.join) {
      if (!entries) this.topics.set(op.key, (entries = new Map()));
      const e: Entry = {
        presenceKey: op.presenceKey,
        phxRef: op.join.phxRef,
        meta: op.join.meta,
        owner,
        node: op.node,
      };
      entries.set(e.phxRef, e);
      if (owner) this.byChannel.set(owner, e);
      (joins[op.presenceKey] ??= { metas: [] }).metas.push({
        ...op.join.meta,
        phx_ref: op.join.phxRef,
      });
    }
    if (entries && entries.size === 0) this.topics.delete(op.key);
    if (Object.keys(joins).length === 0 && Object.keys(leaves).length === 0) return;
    const tenant = owner?.tenant ?? tenantHint ?? this.tenantFor?.(op.tenantId);
    if (!tenant) return;
    const resolved = topic || this.topicOf(tenant, op.key);
    if (!resolved) return;
    topic = resolved;
    const out = new Outgoing(topic, EV.presenceDiff, { json: JSON.stringify({ joins, leaves }) });
    // Every channel on the topic gets the diff, the tracking channel included: Phoenix.Presence
    // broadcasts it with PubSub.local_broadcast (from = :none), so no subscriber is skipped.
    const n = tenant.deliverLocal(op.key, out, null, 'presence');
    this.ctx().stats.presenceEvents += n;
  }

  /** Resolves tenants for remote operations; set by the server. */
  tenantFor: ((id: string) => TenantRoom | undefined) | null = null;

  private topicOf(tenant: TenantRoom, key: string): string | null {
    const m = tenant.members(key);
    if (!m) return null;
    for (const ch of m) return ch.topic;
    return null;
  }
}
