/**
 * One tenant: its configuration and JWT verifier, its rate counters (docs/PROTOCOL.md §8), the
 * transports counted as users, and the PubSub groups (pubsub.ts) its channels subscribe to.
 */
import { TokenVerifier } from './auth.js';
import type { TenantConfig } from '../builtin/config.js';
import type { ServerTimings } from './options.js';
import type { Gate } from './pubsub.js';
import { RateCounter } from './rate-counter.js';
import type { Subscriber, TenantRoom, Transport } from './rooms.js';
import type { Outgoing } from './wire.js';
import { REASON } from '../protocol/constants.js';

/** Forwards a fan-out to the other workers (`--workers`); absent in a single process. */
export interface FanoutBridge {
  forward(tenantId: string, key: string, out: Outgoing, gate: Gate): void;
}

export class Tenant implements TenantRoom {
  readonly id: string;
  readonly verifier: TokenVerifier;
  /** Joins, events (broadcast deliveries), presence events, Postgres change deliveries. */
  readonly joins: RateCounter;
  readonly events: RateCounter;
  readonly presence: RateCounter;
  readonly dbEvents: RateCounter;
  /** Transports that joined at least one channel (`UsersCounter`), local to this process. */
  readonly users = new Set<Transport>();
  /** Users counted by the other workers, as last reported by the cluster primary. */
  remoteUsers = 0;
  readonly connections = new Set<Transport>();
  bridge: FanoutBridge | null = null;
  private readonly groups = new Map<string, Set<Subscriber>>();

  constructor(
    readonly config: TenantConfig,
    timings: ServerTimings,
  ) {
    this.id = config.id;
    this.verifier = new TokenVerifier(config.jwt_secret, config.jwt_jwks);
    const rate = (limit: number | null) =>
      new RateCounter({ tickMs: timings.rateTickMs, bucketCount: timings.rateBuckets, limit });
    this.joins = rate(config.max_joins_per_second);
    this.events = rate(config.max_events_per_second);
    this.presence = rate(config.max_presence_events_per_second);
    this.dbEvents = rate(config.max_events_per_second);
  }

  get userCount(): number {
    return this.users.size + this.remoteUsers;
  }

  /** One RateCounter tick for every counter (single process). */
  tick(): void {
    this.joins.tick();
    this.events.tick();
    this.presence.tick();
    this.dbEvents.tick();
  }

  subscribe(key: string, ch: Subscriber): void {
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = new Set()));
    g.add(ch);
  }

  unsubscribe(key: string, ch: Subscriber): void {
    const g = this.groups.get(key);
    if (!g) return;
    g.delete(ch);
    if (g.size === 0) this.groups.delete(key);
  }

  members(key: string): ReadonlySet<Subscriber> | undefined {
    return this.groups.get(key);
  }

  get channelCount(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.size;
    return n;
  }

  /** Fans out on every worker; returns the local recipients. */
  publish(key: string, out: Outgoing, from: Subscriber | null, gate: Gate): number {
    const n = this.deliverLocal(key, out, from, gate);
    this.bridge?.forward(this.id, key, out, gate);
    return n;
  }

  /**
   * The fastlane (MessageDispatcher.dispatch): the sender's channel is skipped (`from`),
   * each frame is encoded at most once per serializer, and the only per-recipient work is
   * the socket write. Broadcast deliveries count +1 each toward events and presence diffs
   * toward presence events (docs/PROTOCOL.md §4.2, §5.2); while the events limit is tripped every
   * recipient channel is then shut down with `Too many messages per second`
   * (docs/PROTOCOL.md §8.2).
   */
  deliverLocal(key: string, out: Outgoing, from: Subscriber | null, gate: Gate): number {
    const g = this.groups.get(key);
    if (!g) return 0;
    let n = 0;
    let f1: Buffer | null | undefined;
    let f2: Buffer | null | undefined;
    for (const ch of g) {
      if (ch === from) continue;
      if (gate === 'broadcast' ? !ch.readBroadcast : gate === 'presence' && !ch.readPresence)
        continue;
      let buf: Buffer | null;
      if (ch.v2) buf = f2 === undefined ? (f2 = out.frame(true)) : f2;
      else buf = f1 === undefined ? (f1 = out.frame(false)) : f1;
      if (buf === null) continue;
      ch.conn.write(buf);
      n++;
    }
    if (gate === 'presence') {
      this.presence.add(n);
    } else {
      this.events.add(n);
      if (this.events.tripped && n > 0) {
        for (const ch of [...g]) if (ch !== from && !ch.closed) ch.shutdown(REASON.tooManyMessages);
      }
    }
    return n;
  }
}
