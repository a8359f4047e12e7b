/**
 * The Postgres Changes replication poller (docs/PROTOCOL.md §7.1 step 3): one connection
 * (`realtime_rls`), one temporary logical slot, and a loop that consumes at most
 * `pollMaxChanges` slot rows per poll, runs them through apply-rls and hands the resulting
 * events to the server.
 *
 * Cadence, as Supabase's ReplicationPoller:
 * - a poll that delivered something is followed by the next poll at once;
 * - a poll whose changes matched nobody waits `pollIntervalMs` + 50–100 ms of jitter;
 * - an empty slot waits `5 × pollIntervalMs`.
 * A failed poll (lost connection, query timeout) drops the connection and its temporary
 * slot and starts over with a new one after a pause — the changes in between are lost, as
 * they are when Supabase's poller restarts. The slot is temporary so a crashed process
 * leaves no slot retaining WAL.
 *
 * Stats: `lastPollMs` is the duration of the last poll query (Supabase's
 * `replication_poller_query_duration`); `lagMs` is how far behind the newest change of the
 * last non-empty poll was when it was read (now − its commit time), 0 once a poll finds the
 * slot empty, null before the first poll.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  applyRls,
  type ChangeEvent,
  type RlsCatalog,
  type TableFacts,
  type VisibilityCheck,
} from './apply-rls.js';
import { PgOutputDecoder, commitTimeMs, type DecodedChange } from './pgoutput.js';
import type { SubscriptionRegistry } from './subscription-registry.js';
import { r2 } from '../../util/round.js';

export interface PollerOptions {
  connectionString: string;
  publication: string;
  registry: SubscriptionRegistry;
  pollIntervalMs: number;
  pollMaxChanges: number;
  pollMaxRecordBytes: number;
  onEvents: (events: ChangeEvent[]) => void;
  slotName?: string;
  queryTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface PollerStats {
  lagMs: number | null;
  lastPollMs: number | null;
  polls: number;
  changes: number;
  events: number;
  restarts: number;
}

const RESTART_PAUSE_MS = 1_000;

export function defaultSlotName(): string {
  return `supabase_realtime_replication_slot_rtcap_${randomBytes(4).toString('hex')}`;
}

export class Poller {
  readonly slotName: string;
  private client: pg.Client | null = null;
  private decoder = new PgOutputDecoder();
  private readonly typeNameCache = new Map<number, string>();
  private stopped = false;
  private loopDone: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private sleepTimer: NodeJS.Timeout | null = null;
  readonly stats: PollerStats = {
    lagMs: null,
    lastPollMs: null,
    polls: 0,
    changes: 0,
    events: 0,
    restarts: 0,
  };

  constructor(private readonly opts: PollerOptions) {
    this.slotName = opts.slotName ?? defaultSlotName();
  }

  /** Connects and creates the slot before returning, so no change after start is missed. */
  async start(): Promise<void> {
    await this.connect();
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sleepTimer) clearTimeout(this.sleepTimer);
    this.wake?.();
    await this.loopDone;
    await this.disconnect();
  }

  private async connect(): Promise<void> {
    const c = new pg.Client({
      connectionString: this.opts.connectionString,
      application_name: 'realtime_rls',
      query_timeout: this.opts.queryTimeoutMs ?? 30_000,
    });
    c.on('error', (e) => this.opts.log?.(`realtime_rls: connection error: ${e.message}`));
    await c.connect();
    try {
      // Output functions format the text values: values.ts expects UTC and ISO dates.
      await c.query(
        `set timezone to 'UTC'; set datestyle to 'ISO, MDY'; set extra_float_digits to 1`,
      );
      await c.query(`select pg_create_logical_replication_slot($1, 'pgoutput', true)`, [
        this.slotName,
      ]);
    } catch (e) {
      await c.end().catch(() => undefined);
      throw e;
    }
    this.client = c;
    this.decoder = new PgOutputDecoder();
  }

  private async disconnect(): Promise<void> {
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => undefined);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      this.sleepTimer = setTimeout(resolve, ms);
    }).then(() => {
      this.wake = null;
      this.sleepTimer = null;
    });
  }

  private async loop(): Promise<void> {
    const { pollIntervalMs } = this.opts;
    while (!this.stopped) {
      let delayMs: number;
      try {
        if (!this.client) {
          await this.connect();
          this.stats.restarts++;
        }
        delayMs = await this.pollOnce(this.client!);
      } catch (e) {
        if (this.stopped) break;
        this.opts.log?.(`ReplicationPoller: ${(e as Error).message}; restarting with a new slot`);
        await this.disconnect();
        delayMs = Math.max(RESTART_PAUSE_MS, pollIntervalMs);
      }
      if (delayMs > 0) await this.sleep(delayMs);
      else await new Promise<void>((r) => setImmediate(r));
    }
  }

  /** One poll; returns the delay before the next one (docs/PROTOCOL.md §7.1 cadence). */
  private async pollOnce(c: pg.Client): Promise<number> {
    const { pollIntervalMs } = this.opts;
    const t0 = performance.now();
    const r = await c.query<{ data: Buffer }>({
      name: 'rtcap_poll',
      text: `select data from pg_logical_slot_get_binary_changes($1, null, $2::int, 'proto_version', '1', 'publication_names', $3)`,
      values: [this.slotName, this.opts.pollMaxChanges, this.opts.publication],
    });
    this.stats.lastPollMs = r2(performance.now() - t0);
    this.stats.polls++;
    if (r.rows.length === 0) {
      this.stats.lagMs = 0;
      return 5 * pollIntervalMs;
    }
    const changes: DecodedChange[] = [];
    for (const row of r.rows) {
      const ch = this.decoder.decode(row.data);
      if (ch) changes.push(ch);
    }
    for (const [oid, name] of this.decoder.typeNames) this.typeNameCache.set(oid, name);
    if (changes.length === 0) return pollIntervalMs + 50 + Math.random() * 50;
    this.stats.changes += changes.length;
    this.stats.lagMs = Math.max(
      0,
      Date.now() - commitTimeMs(changes[changes.length - 1].commitTimeUs),
    );

    const events = await applyRls(changes, this.opts.registry, this.catalog(c), {
      maxRecordBytes: this.opts.pollMaxRecordBytes,
    });
    if (events.length === 0) return pollIntervalMs + 50 + Math.random() * 50;
    this.stats.events += events.length;
    try {
      this.opts.onEvents(events);
    } catch (e) {
      // A listener's bug must not cost the slot (and with it every change in flight).
      this.opts.log?.(`ReplicationPoller: change listener threw: ${(e as Error).message}`);
    }
    return 0;
  }

  private catalog(c: pg.Client): RlsCatalog {
    return {
      tableFacts: async (relids) => {
        const r = await c.query<{ relid: string; rls: boolean; pk: string[] }>({
          name: 'rtcap_table_facts',
          text: `select c.oid::int8 as relid, c.relrowsecurity as rls,
                  coalesce((select array_agg(a.attname::text order by a.attnum)
                              from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
                             where i.indrelid = c.oid and i.indisprimary), '{}') as pk
                 from pg_class c where c.oid = any($1::oid[])`,
          values: [relids],
        });
        return new Map<number, TableFacts>(
          r.rows.map((row) => [Number(row.relid), { rlsEnabled: row.rls, primaryKey: row.pk }]),
        );
      },
      selectableColumns: async (pairs) => {
        const r = await c.query<{ role: string; relid: string; cols: string[] }>({
          name: 'rtcap_selectable_columns',
          text: `select r.role, r.relid::int8 as relid,
                  coalesce(array_agg(a.attname::text) filter (where has_column_privilege(r.role, a.attrelid, a.attnum, 'SELECT')), '{}') as cols
                 from unnest($1::text[], $2::oid[]) as r(role, relid)
                 join pg_attribute a on a.attrelid = r.relid and a.attnum > 0 and not a.attisdropped
                 group by r.role, r.relid`,
          values: [pairs.map((p) => p.role), pairs.map((p) => p.relid)],
        });
        return new Map(
          r.rows.map((row) => [`${row.role}\u0000${Number(row.relid)}`, new Set(row.cols)]),
        );
      },
      typeNames: async (oids) => {
        const missing = oids.filter((o) => !this.typeNameCache.has(o));
        if (missing.length) {
          const r = await c.query<{ oid: string; typname: string }>({
            name: 'rtcap_type_names',
            text: `select oid::int8 as oid, typname from pg_type where oid = any($1::oid[])`,
            values: [missing],
          });
          for (const row of r.rows) this.typeNameCache.set(Number(row.oid), row.typname);
        }
        return this.typeNameCache;
      },
      visible: async (checks: VisibilityCheck[]) => {
        const r = await c.query<{ idx: number[] }>({
          name: 'rtcap_visible',
          text: `select realtime.rtcap_visible($1::jsonb) as idx`,
          values: [JSON.stringify(checks)],
        });
        return new Set(r.rows[0]?.idx ?? []);
      },
    };
  }
}
