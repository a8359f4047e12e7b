/**
 * The join of a `realtime:*` channel (docs/PROTOCOL.md §3.2): the checks in Realtime's order,
 * then the channel registered, replied to, and its presence state and Postgres subscriptions
 * started. A refusal is replied after the channel error backoff, as `join_error` sleeps before
 * answering.
 */
import { randomUUID } from 'node:crypto';
import { REALTIME_TOPIC_PREFIX, REASON } from '../protocol/constants.js';
import { sleep } from '../util/sleep.js';
import { joinRefusal } from './auth.js';
import { Channel, type ChannelConn } from './channel.js';
import { errorCode } from './db-types.js';
import { intern } from './intern.js';
import { bindingId, parseJoinPayload, type JoinConfig } from './join-config.js';
import type { Inbound } from './rooms.js';
import { replyFrame } from './wire.js';

/** Why a join is refused, and whether the socket is disconnected too (too many joins). */
interface Refusal {
  reason: string;
  disconnect?: boolean;
}

/**
 * Runs the join checks; on success registers the channel, replies ok and pushes presence_state /
 * starts Postgres subscriptions.
 */
export async function joinChannel(conn: ChannelConn, f: Inbound): Promise<void> {
  const subtopic = f.topic.slice(REALTIME_TOPIC_PREFIX.length);
  const fail = (r: Refusal) => refuse(conn, f, r);
  if (subtopic === '') return fail({ reason: REASON.topicNameRequired });
  const cfg = parseJoinPayload(f.payload, subtopic);
  const admission = admissionRefusal(conn, cfg);
  if (admission) return fail(admission);
  // access_token (or user_token) unless absent or an opaque `sb_` key (docs/PROTOCOL.md §3.1).
  const token =
    cfg.accessToken !== null && !cfg.accessToken.startsWith('sb_') ? cfg.accessToken : conn.token;
  const verified = await conn.tenant.verifier.verify(token);
  if (!verified.ok) return fail({ reason: joinRefusal(verified) });
  // Check 8: the tenant DB connection. Public broadcast never waits on Postgres here; only
  // private channels and Postgres Changes need it.
  const { ctx } = conn;
  if ((cfg.isPrivate || cfg.postgresChanges.length > 0) && !ctx.db)
    return fail({
      reason: ctx.dbState === 'starting' ? REASON.joinDbInitializing : REASON.joinDbUnavailable,
    });
  const ch = new Channel(conn, { topic: intern(f.topic), joinRef: f.joinRef, cfg, token });
  ch.claims = verified.claims;
  const unreadable = cfg.isPrivate ? await authorizeJoinRead(ch) : null;
  if (unreadable) return fail({ reason: unreadable });
  if (cfg.replay) return fail({ reason: replayRefusal(ch) });
  if (conn.closed) return;
  register(ch, f, verified.expS);
}

/** The join error reply, after the channel error backoff; counted as a refused join. */
async function refuse(conn: ChannelConn, f: Inbound, r: Refusal): Promise<void> {
  conn.ctx.stats.joinsError++;
  // No backoff (0 ms) answers at once, without waiting for a timer.
  const backoffMs = conn.ctx.timings.channelErrorBackoffMs;
  await (backoffMs > 0 ? sleep(backoffMs) : undefined);
  conn.write(
    replyFrame({ v2: conn.v2, joinRef: f.joinRef, topic: f.topic }, f.ref, 'error', {
      reason: r.reason,
    }),
  );
  if (r.disconnect) conn.disconnect();
}

/**
 * The checks before the token, in Realtime's order: shutdown, tenant suspended, private only,
 * concurrent users, joins per second (which counts the join that passes), channels per client.
 */
function admissionRefusal(conn: ChannelConn, cfg: JoinConfig): Refusal | null {
  const { ctx, tenant } = conn;
  const limits = tenant.config;
  if (ctx.shuttingDown) return { reason: REASON.joinRestarting };
  if (limits.suspended) return { reason: REASON.joinTenantSuspended };
  if (limits.private_only && !cfg.isPrivate) return { reason: REASON.privateOnly };
  if (
    limits.max_concurrent_users !== null &&
    !conn.counted &&
    tenant.userCount >= limits.max_concurrent_users
  ) {
    return { reason: REASON.joinTooManyConnectedUsers };
  }
  // The join counter is read as of its last tick and counts only joins that pass (`limit_joins`).
  if (tenant.joins.tripped) return { reason: REASON.joinTooManyJoins, disconnect: true };
  tenant.joins.add(1);
  if (
    limits.max_channels_per_client !== null &&
    conn.channels.size >= limits.max_channels_per_client
  ) {
    return { reason: REASON.joinTooManyChannels };
  }
  return null;
}

/**
 * A private channel's read permissions (docs/PROTOCOL.md §6.2), set on the channel; the refusal
 * when it may read neither broadcast nor presence, or when the check itself failed.
 */
async function authorizeJoinRead(ch: Channel): Promise<string | null> {
  try {
    const read = await ch.conn.ctx.db!.authorizeRead(ch.authContext(), {
      presence: ch.presenceEnabled,
    });
    ch.readBroadcast = read.broadcast;
    ch.readPresence = ch.presenceEnabled ? read.presence : false;
    if (!read.broadcast && !read.presence) return REASON.joinUnauthorized(ch.subtopic);
    ch.presenceReadChecked = ch.presenceEnabled;
    return null;
  } catch (e) {
    return errorCode(e) === 'increase_connection_pool'
      ? REASON.increaseConnectionPool
      : REASON.dbUnavailable;
  }
}

/**
 * Replay needs broadcast.read and a private channel; the built-in server keeps no message
 * history, so a replay join is always refused, with the reason Realtime gives first.
 */
function replayRefusal(ch: Channel): string {
  if (!ch.cfg.isPrivate) return REASON.replayPublic;
  if (!ch.readBroadcast) return REASON.joinUnauthorized(ch.subtopic);
  return REASON.replayUnavailable;
}

/** The join passed: the channel joins its socket, tenant group and the hubs, and is told ok. */
function register(ch: Channel, f: Inbound, expS: number): void {
  const { conn } = ch;
  const { ctx, tenant } = conn;
  ch.pg = ch.cfg.postgresChanges.map((p) => ({
    ...p,
    id: bindingId(p.raw),
    subscriptionId: randomUUID(),
  }));
  conn.channels.set(ch.topic, ch);
  tenant.subscribe(ch.key, ch);
  if (!conn.counted) {
    conn.counted = true;
    tenant.users.add(conn);
  }
  ctx.stats.joinsOk++;
  ch.scheduleConfirm(expS);
  conn.write(
    replyFrame({ v2: conn.v2, joinRef: f.joinRef, topic: f.topic }, f.ref, 'ok', {
      postgres_changes: ch.pg.map((b) => ({ ...b.raw, id: b.id })),
    }),
  );
  if (ch.presenceEnabled) ch.syncPresence();
  if (ch.pg.length > 0) ctx.changes.add(ch);
  if (ch.cfg.replicationReady) ch.pushSystem('system', 'ok', REASON.replicationReady);
}
