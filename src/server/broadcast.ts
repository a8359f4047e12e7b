/**
 * Realtime's BroadcastHandler (docs/PROTOCOL.md §4.1): a client's `broadcast` on a joined channel
 * is fanned out to the topic's subscribers, after a private channel's lazily checked write
 * permission and the tenant's payload size limit; with `ack` the sender gets a reply.
 */
import { EV, REASON } from '../protocol/constants.js';
import { errorCode, type AuthContext } from './db-types.js';
import type { JoinConfig } from './join-config.js';
import type { Inbound, ServerContext, Subscriber, TenantRoom } from './rooms.js';
import { bodyBytes, Outgoing, type OutBody } from './wire.js';

/** A joined channel as the broadcast handler sees it (implemented by channel.ts). */
export interface BroadcastChannel extends Subscriber {
  readonly key: string;
  readonly tenant: TenantRoom;
  readonly cfg: Pick<JoinConfig, 'isPrivate' | 'ack' | 'self'>;
  /** The private channel's write permission, checked on first use; null until then. */
  writeBroadcast: boolean | null;
  authContext(): AuthContext;
  reply(ref: string | null, status: 'ok' | 'error', response: unknown): void;
  crash(): void;
}

/** A private channel's broadcast: its write permission is checked first, once per claims. */
export async function privateBroadcast(
  ch: BroadcastChannel,
  ctx: ServerContext,
  f: Inbound,
): Promise<void> {
  if (ch.writeBroadcast === null) {
    const db = ctx.db;
    if (!db) return;
    try {
      ch.writeBroadcast = await db.authorizeWrite(ch.authContext(), 'broadcast');
    } catch (e) {
      // Write-check errors are only logged; the message is dropped and nothing is replied
      // (docs/PROTOCOL.md §4.1, §6.4).
      ctx.log(`write check on ${ch.topic} failed: ${errorCode(e) ?? (e as Error).message}`);
      return;
    }
  }
  broadcast(ch, ctx, f);
}

/** BroadcastHandler.handle (docs/PROTOCOL.md §4.1). */
export function broadcast(ch: BroadcastChannel, ctx: ServerContext, f: Inbound): void {
  if (ch.closed) return;
  // A denied private write is neither counted nor answered, even with ack
  // (docs/PROTOCOL.md §4.1).
  if (ch.cfg.isPrivate && ch.writeBroadcast !== true) return;
  const tenant = ch.tenant;
  tenant.events.add(1);
  let body: OutBody;
  if (f.user) body = { user: f.user };
  else if (f.binary) body = { binary: f.binary };
  else {
    const p = f.payload;
    // Phoenix's serializers only fan out map payloads; anything else crashes the sender's
    // channel.
    if (p === null || typeof p !== 'object' || Array.isArray(p)) return ch.crash();
    body = { json: JSON.stringify(p) };
  }
  const kb = tenant.config.max_payload_size_in_kb;
  if (kb !== null && bodyBytes(body) > kb * 1000 + 500) {
    if (ch.cfg.ack) ch.reply(f.ref, 'error', REASON.payloadSizeExceeded);
    return;
  }
  ctx.stats.broadcastsIn++;
  const n = tenant.publish(
    ch.key,
    new Outgoing(ch.topic, EV.broadcast, body),
    ch.cfg.self ? null : ch,
    'broadcast',
  );
  ctx.stats.deliveries += n;
  if (ch.cfg.ack && !ch.closed) ch.reply(f.ref, 'ok', {});
}
