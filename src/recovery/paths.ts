/**
 * The path a recovery probe exercises: the one the search loads. A server can carry broadcasts
 * again while the path a step loaded is still down — after an overloaded Postgres Changes step
 * the built-in server fanned out broadcasts at once, while its change pipeline delivered nothing
 * for minutes — so a probe of the wrong path reads "recovered" and the next steps measure the
 * backlog. And a probe on a topic of its own reads "recovered" while the bench topic still works
 * off its backlog (a real server queues per topic and per member, not once for all). One round
 * trip per path:
 *
 * - broadcast: a broadcast to itself (self: true) on the bench topic, beside the step's members
 *   (a search on one public topic; other broadcast searches: a topic of its own), so it queues
 *   behind whatever that topic still carries (the members ignore it: generator/slow-frames);
 * - join: one private (RLS-authorised) join of a topic of its own, with a user's token, as a
 *   join-rate step's joins: a check on the same authorisation pool;
 * - presence: a track on a presence topic of its own and the presence_diff it causes (the
 *   server sends a member its own diffs);
 * - postgres-changes: a subscription of its own (filtered to a room no step uses, when the
 *   table has a filter column), an INSERT through the database and the change event for it.
 *
 * Each round trip's time runs from just before the send (the insert's own time included) to
 * the arrival.
 */
import { EV, PROBE_EVENT } from '../protocol/constants.js';
import type { Frame } from '../protocol/frame-types.js';
import { RECOVERY_PATH_WORDS } from '../model/limit.js';
import type { Profile } from '../profile/schema.js';
import { defaultInsertSql } from '../scenarios/changes.js';
import { privateTopic } from '../scenarios/common.js';
import { nowMs } from '../measure/clock.js';
import type { QConn, QConnEvents } from '../client/qconn.js';

export const PROBE_TOPIC = 'realtime:rtcap-probe';
export const PRESENCE_PROBE_TOPIC = 'realtime:rtcap-probe-presence';
export const CHANGES_PROBE_TOPIC = 'realtime:rtcap-probe-changes';
/** The room the probe's rows carry: no step's room (rooms are numbered from 0 up). */
export const PROBE_ROOM_ID = 2_000_000_000;
/** How long the probe waits for its Postgres Changes subscription to be confirmed. */
export const PROBE_SUBSCRIBE_TIMEOUT_MS = 10_000;

export type ProbePath =
  /** `topic`: the bench topic the step loads; absent: a topic of the probe's own. */
  | { kind: 'broadcast'; topic?: string }
  | { kind: 'presence' }
  | {
      kind: 'join';
      /** Private topics `<topicPrefix><i>`, one per round trip. */
      topicPrefix: string;
      /** Role and claims of the probe's user token, as a step's connection's. */
      role: string;
      claims: Record<string, unknown>;
    }
  | {
      kind: 'postgres-changes';
      connectionString: string;
      /** $1 room id, $2 body, $3 scheduled time (epoch ms): the loader's INSERT. */
      insertSql: string;
      binding: { event: string; schema: string; table: string; filter?: string };
      /** Claims of the probe's token, so the table's row-level security shows it the rows. */
      claims: Record<string, unknown>;
    };

export type ProbePathKind = ProbePath['kind'];

/** The path in words, for a stop reason and a row's limit ("change pipeline did not recover"). */
export const PROBE_PATH_WORDS: Readonly<Record<ProbePathKind, string>> = RECOVERY_PATH_WORDS;

/** What one round trip waits for, in words ("no change event arrived"). */
export const PROBE_ARRIVAL_WORDS: Record<ProbePathKind, string> = {
  broadcast: 'no probe broadcast came back',
  join: 'no private join of the probe was answered ok',
  presence: 'no presence diff of the probe’s tracks arrived',
  'postgres-changes': 'no change event of the probe’s inserts arrived',
};

/** Scenarios whose every connection joins the one public topic target.topic. */
const ONE_TOPIC_SCENARIOS: ReadonlySet<string> = new Set(['broadcast-public', 'payload-size']);

/**
 * The path a profile's search loads. Postgres Changes without a known database (a remote
 * server without target.database_url) cannot insert: its probe falls back to broadcasts.
 */
export function probePathOf(profile: Profile, connectionString: string | null): ProbePath {
  if (profile.scenario === 'presence') return { kind: 'presence' };
  if (profile.scenario === 'join-rate')
    return {
      kind: 'join',
      topicPrefix: privateTopic(profile, 'rtcap-probe-'),
      role: profile.private.role,
      claims: { sub: `${profile.private.sub_prefix}rtcap-probe` },
    };
  if (ONE_TOPIC_SCENARIOS.has(profile.scenario))
    return { kind: 'broadcast', topic: profile.target.topic };
  if (profile.scenario !== 'postgres-changes' || !connectionString) return { kind: 'broadcast' };
  const c = profile.changes;
  return {
    kind: 'postgres-changes',
    connectionString,
    insertSql: c.insert_sql ?? defaultInsertSql(profile),
    binding: {
      event: c.event,
      schema: c.schema,
      table: c.table,
      ...(c.filter_column ? { filter: `${c.filter_column}=eq.${PROBE_ROOM_ID}` } : {}),
    },
    claims: { sub: 'rtcap-probe', ...c.claims },
  };
}

/** One probe's use of a path: what it joins with, how it sends, what counts as the arrival. */
export interface PathProbe {
  topic: string;
  joinConfig: Record<string, unknown>;
  /** The connection's events: `arrived` is called with the time of round trip `i`'s arrival. */
  events: QConnEvents;
  /** Set by the probe before each send: called once when that round trip arrives. */
  onArrival: ((atMs: number) => void) | null;
  /**
   * After the join: null when ready, else why the path is not (a subscription not confirmed):
   * the path gave nothing back, as a lost round trip does.
   */
  ready(): Promise<string | null>;
  /** Sends round trip `i`; false when it could not be sent. */
  send(conn: QConn, i: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The body of the probe's row `i`: not "stream:seq", so the step's subscribers ignore it. */
export function probeRowBody(i: number): string {
  return `rtcap-probe-${i}`;
}

function bodyOf(f: Frame): string | null {
  const rec = (f.payload as { data?: { record?: { body?: unknown } } } | null)?.data?.record;
  return typeof rec?.body === 'string' ? rec.body : null;
}

/** The path probe for one probe connection. */
export function pathProbe(path: ProbePath): PathProbe {
  if (path.kind === 'postgres-changes') return changesProbe(path);
  if (path.kind === 'join') return joinProbe(path);
  const presence = path.kind === 'presence';
  const topic = presence
    ? PRESENCE_PROBE_TOPIC
    : (path.kind === 'broadcast' && path.topic) || PROBE_TOPIC;
  const probe: PathProbe = {
    topic,
    joinConfig: presence
      ? { private: false, presence: { key: 'rtcap-probe', enabled: true } }
      : { broadcast: { ack: false, self: true }, private: false },
    onArrival: null,
    events: presence
      ? {
          onPresenceFrame: (_c, kind, t, atMs) =>
            kind === 'diff' && t === topic && probe.onArrival?.(atMs),
        }
      : { onBroadcast: (_c, t, atMs) => t === topic && probe.onArrival?.(atMs) },
    ready: () => Promise.resolve(null),
    send: (conn, i) =>
      Promise.resolve(
        presence
          ? conn.push(
              topic,
              EV.presence,
              { type: 'presence', event: 'track', payload: { i } },
              false,
            )
          : conn.push(
              topic,
              EV.broadcast,
              { type: EV.broadcast, event: PROBE_EVENT, payload: { i } },
              false,
            ),
      ),
    close: () => Promise.resolve(),
  };
  return probe;
}

/**
 * Join rate: the probe connection sits on a public topic of its own; each round trip is one
 * private join (`<topicPrefix><i>`, the user's token as access_token) and its ok reply, the
 * check a step's joins wait for. A refused or unanswered join ends the probe unanswered.
 */
function joinProbe(path: Extract<ProbePath, { kind: 'join' }>): PathProbe {
  const probe: PathProbe = {
    topic: PROBE_TOPIC,
    joinConfig: { broadcast: { ack: false, self: false }, private: false },
    onArrival: null,
    events: {},
    ready: () => Promise.resolve(null),
    // A refused join is one not sent: the probe ends there, its round trip unanswered.
    send: async (conn, i) => {
      const topic = `${path.topicPrefix}${i}`;
      const r = await conn.join(topic, { private: true });
      if (!r.ok) return false;
      probe.onArrival?.(nowMs());
      conn.leave(topic);
      return true;
    },
    close: () => Promise.resolve(),
  };
  return probe;
}

function changesProbe(path: Extract<ProbePath, { kind: 'postgres-changes' }>): PathProbe {
  let expected: string | null = null;
  let confirmed: ((error: string | null) => void) | null = null;
  let client: import('pg').Client | null = null;
  const probe: PathProbe = {
    topic: CHANGES_PROBE_TOPIC,
    joinConfig: { private: false, postgres_changes: [path.binding] },
    onArrival: null,
    events: {
      onOtherFrame: (_c, f, atMs) => {
        if (f.topic !== CHANGES_PROBE_TOPIC) return;
        if (f.event === EV.system) {
          const p = f.payload as { extension?: string; status?: string; message?: string } | null;
          if (p?.extension !== EV.postgresChanges) return;
          confirmed?.(
            p.status === 'ok'
              ? null
              : `the probe’s subscription was refused: ${p.message ?? p.status}`,
          );
        } else if (f.event === EV.postgresChanges && expected !== null && bodyOf(f) === expected) {
          expected = null;
          probe.onArrival?.(atMs);
        }
      },
    },
    ready: () =>
      new Promise((resolve) => {
        const timer = setTimeout(
          () =>
            resolve(
              `the probe’s subscription was not confirmed within ${PROBE_SUBSCRIBE_TIMEOUT_MS / 1000} s`,
            ),
          PROBE_SUBSCRIBE_TIMEOUT_MS,
        );
        confirmed = (error) => {
          clearTimeout(timer);
          confirmed = null;
          resolve(error);
        };
      }),
    send: async (_conn, i) => {
      try {
        if (!client) {
          const pg = (await import('pg')).default;
          client = new pg.Client({
            connectionString: path.connectionString,
            connectionTimeoutMillis: 5_000,
          });
          client.on('error', () => undefined);
          await client.connect();
        }
        expected = probeRowBody(i);
        await client.query(path.insertSql, [PROBE_ROOM_ID, expected, Date.now()]);
        return true;
      } catch {
        return false;
      }
    },
    close: async () => {
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
  return probe;
}
