/**
 * What `rtcap init` asks a Supabase Realtime before it writes a profile: which wire encoding
 * carries a broadcast there. One connection per encoding joins a topic with `self: true`, sends
 * one broadcast and waits for it to come back: first a v2 binary push (what current realtime-js
 * sends under vsn 2.0.0, docs/PROTOCOL.md §2.3), then JSON text frames under vsn 2.0.0, then vsn
 * 1.0.0. A server that cannot decode binary pushes (Supabase Realtime v2.28 closes the connection
 * with 1011) falls through to the next. A public profile's probe joins a public topic of its own;
 * a private one's joins the profile's first private topic with its first user's token, so the
 * server's RLS policies decide the join as they will decide the run's. A server that cannot be
 * reached, or does not speak Phoenix channels, is named in one line and nothing is written.
 * Bounded: each wait is at most `timeoutMs` (a reply: `replyTimeoutMs`), and a connect that fails
 * ends the probe. A plain
 * Phoenix app is probed by init/probe-phoenix.
 */
import { TokenSource } from '../client/auth.js';
import { buildSocketUrl } from '../client/url.js';
import { EV, type Vsn } from '../protocol/constants.js';
import { QConn, type QuotaTarget } from '../client/qconn.js';
import { sleep } from '../util/sleep.js';

/** The topic the probe joins: none of a profile's (realtime:bench, realtime:room-N). */
export const INIT_PROBE_TOPIC = 'realtime:rtcap-init-probe';

/** One wire encoding a profile can ask for (target.vsn, target.binary_broadcast). */
export interface Encoding {
  vsn: Vsn;
  /** Broadcasts as v2 binary kind-3 frames (vsn 2.0.0 only). */
  binary: boolean;
}

/** In the order tried: what current clients speak first. */
export const ENCODINGS: readonly Encoding[] = [
  { vsn: '2.0.0', binary: true },
  { vsn: '2.0.0', binary: false },
  { vsn: '1.0.0', binary: false },
];

export function encodingWords(e: Encoding): string {
  if (e.vsn === '1.0.0') return 'vsn 1.0.0 (JSON objects)';
  return e.binary ? 'vsn 2.0.0 binary broadcasts' : 'vsn 2.0.0 JSON text frames';
}

export interface ProbeRequest {
  /** The socket URL without vsn (starter-normalised). */
  url: string;
  dialect: 'supabase' | 'phoenix';
  headers: Record<string, string>;
  tokens: TokenSource;
  apikeyIn: 'query' | 'header';
  /** phoenix: the topic and join payload the profile uses. */
  topic?: string;
  joinPayload?: Record<string, unknown>;
  /**
   * supabase, a private profile: the private topic its first connection joins and that
   * connection's user token (the join's access_token), as the run will.
   */
  private?: PrivateJoin;
  /** The wait for the broadcast back (for a push to reach another member) is at most this long. */
  timeoutMs: number;
  /**
   * The wait for the upgrade and for a join's reply (default: timeoutMs). Supabase Realtime
   * answers a join it refuses only after its channel error backoff, 5 s (docs/PROTOCOL.md §8.2).
   */
  replyTimeoutMs?: number;
}

/** The private join a private profile's first connection makes. */
export interface PrivateJoin {
  /** On the wire: realtime:room-0. */
  topic: string;
  /** The user token's source (role authenticated, sub user-0). */
  joinTokens: TokenSource;
  /** Whose token, in words: "user-0's token (role authenticated)". */
  whose: string;
}

/** What one encoding did. */
export type AttemptOutcome =
  /** `event`: a Phoenix app's relay, the event it came as. */
  | { kind: 'delivered'; ms: number; event?: string }
  | { kind: 'closed'; reason: string }
  | { kind: 'silent' }
  | { kind: 'connect-failed'; reason: string }
  | { kind: 'join-refused'; reason: string };

export type ProbeAnswer =
  /** `receiveEvent`: a Phoenix app relays pushes as this event (target.receive_event). */
  | { ok: true; encoding: Encoding; line: string; receiveEvent?: string }
  | {
      ok: false;
      /** unreachable / refused / not Phoenix / its key rejected / join refused / nothing back. */
      why: 'unreachable' | 'refused' | 'not-phoenix' | 'rejected' | 'join-refused' | 'no-delivery';
      line: string;
    };

/** Tries the encodings in turn; the first that delivers is the answer. */
export async function probeServer(req: ProbeRequest): Promise<ProbeAnswer> {
  const tried: string[] = [];
  const where = req.private ? ` on private ${req.private.topic}` : '';
  for (const enc of ENCODINGS) {
    const o = await attempt(req, enc);
    if (o.kind === 'delivered') {
      const before = tried.length ? `; ${tried.join('; ')}` : '';
      return {
        ok: true,
        encoding: enc,
        line: `probed ${req.url}: a broadcast${where} came back under ${encodingWords(enc)} in ${o.ms} ms${before}: wrote ${encodingWords(enc)}`,
      };
    }
    if (o.kind === 'connect-failed') return connectFailure(req.url, o.reason);
    if (o.kind === 'join-refused')
      return req.private
        ? privateJoinFailure(req.url, req.private, o.reason)
        : joinFailure(req.url, o.reason);
    tried.push(
      `${encodingWords(enc)}: ${o.kind === 'closed' ? o.reason : `nothing came back within ${req.timeoutMs} ms`}`,
    );
  }
  return {
    ok: false,
    why: 'no-delivery',
    line: req.private
      ? `${req.url} joined private ${req.private.topic} with ${req.private.whose}, but no probe broadcast came back under any encoding (${tried.join('; ')}): may that user write there (an insert policy on realtime.messages)?`
      : `${req.url} joined, but no probe broadcast came back under any encoding (${tried.join('; ')}): is broadcast enabled for the tenant?`,
  };
}

/** The connection a probe opens under one encoding, with the profile's headers and tokens. */
export function probeTarget(req: ProbeRequest, enc: Encoding): QuotaTarget {
  return {
    socketUrl: buildSocketUrl(req.url, { vsn: enc.vsn }),
    headers: req.headers,
    vsn: enc.vsn,
    tokens: req.tokens,
    apikeyIn: req.apikeyIn,
    replyTimeoutMs: req.replyTimeoutMs ?? req.timeoutMs,
    ...(req.private ? { joinTokens: req.private.joinTokens } : {}),
  };
}

/** The wait for a probe's push: back (with its time), the connection closed, or silent. */
export interface Arrival {
  outcome: Promise<AttemptOutcome>;
  /** Came back (a Phoenix app's relay: as `event`). */
  arrived(event?: string): void;
  gone(reason: string): void;
}

/** Starts the wait for a push sent now; silent after `timeoutMs`. */
export function arrival(timeoutMs: number): Arrival {
  const t0 = Date.now();
  let settle: (o: AttemptOutcome) => void = () => undefined;
  const outcome = new Promise<AttemptOutcome>((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'silent' }), timeoutMs);
    settle = (o) => {
      clearTimeout(timer);
      resolve(o);
    };
  });
  return {
    outcome,
    arrived: (event) => settle({ kind: 'delivered', ms: Date.now() - t0, event }),
    gone: (reason) => settle({ kind: 'closed', reason }),
  };
}

/** One encoding: connect, join with self: true, one broadcast, wait for it or the close. */
async function attempt(req: ProbeRequest, enc: Encoding): Promise<AttemptOutcome> {
  let wait: Arrival | null = null;
  const topic = req.private?.topic ?? INIT_PROBE_TOPIC;
  const opened = await QConn.open(0, probeTarget(req, enc), {
    onBroadcast: (_c, t) => t === topic && wait?.arrived(),
    onSocketClosed: (_c, reason) => wait?.gone(reason ?? 'the server closed the connection'),
  });
  if (!opened.ok) return { kind: 'connect-failed', reason: opened.reason };
  const conn = opened.conn;
  try {
    const joined = await conn.join(topic, {
      broadcast: { ack: false, self: true },
      private: req.private !== undefined,
    });
    if (!joined.ok) return { kind: 'join-refused', reason: joined.reason };
    wait = arrival(req.timeoutMs);
    const inner = { probe: 'rtcap init' };
    const sent = enc.binary
      ? conn.conn.push(topic, EV.broadcast, null, false, { userEvent: 'rtcap-probe', inner })
      : conn.push(
          topic,
          EV.broadcast,
          { type: EV.broadcast, event: 'rtcap-probe', payload: inner },
          false,
        );
    if (!sent) return { kind: 'closed', reason: 'the connection closed before the push' };
    return await wait.outcome;
  } finally {
    await closeProbe(conn);
  }
}

/** Closes and waits for the close handshake (at most 1 s). */
export async function closeProbe(conn: QConn): Promise<void> {
  conn.close();
  for (let i = 0; i < 100 && !conn.closed; i++) await sleep(10);
}

/** A connect that failed, named by what it means: nothing there, refused, not Phoenix. */
export function connectFailure(url: string, reason: string): ProbeAnswer & { ok: false } {
  const host = new URL(url).host;
  if (/ECONNREFUSED/.test(reason))
    return {
      ok: false,
      why: 'refused',
      line: `nothing listens on ${host}: the connection was refused (${reason})`,
    };
  if (/ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|connect timeout/.test(reason))
    return { ok: false, why: 'unreachable', line: `${host} is unreachable (${reason})` };
  if (/upgrade refused: HTTP 40[13]/.test(reason))
    return {
      ok: false,
      why: 'rejected',
      line: `${url} refused the probe's key (${reason})`,
    };
  return {
    ok: false,
    why: 'not-phoenix',
    line: `${url} is not a Phoenix channels socket (${reason})`,
  };
}

/** A refused join, named by what it means: not Phoenix, the wrong topic, the key, or as is. */
export function joinFailure(url: string, reason: string): ProbeAnswer & { ok: false } {
  if (/timeout|malformed|not json|closed before/i.test(reason))
    return {
      ok: false,
      why: 'not-phoenix',
      line: `${url} accepted the WebSocket but did not answer a Phoenix join (${reason})`,
    };
  if (/unmatched topic/i.test(reason))
    return {
      ok: false,
      why: 'not-phoenix',
      line: `${url} has no channel for the probe's topic (${reason}): a plain Phoenix app is --kind phoenix --topic <one of its topics>`,
    };
  // A refused token is the key's problem; any other refusal is quoted as it stands.
  const key = /jwt|token|auth|unauthori[sz]ed|forbidden|expired|signature|apikey|api key/i;
  return {
    ok: false,
    why: key.test(reason) ? 'rejected' : 'join-refused',
    line: `${url} refused the probe's join (${reason})`,
  };
}

/**
 * A private join the server refused: its RLS policies on realtime.messages (the SQL rtcap init
 * prints with --private) or the token. Realtime words a missing read policy "Unauthorized: You
 * do not have permissions to read from this Channel topic: room-0".
 */
function privateJoinFailure(
  url: string,
  join: PrivateJoin,
  reason: string,
): ProbeAnswer & { ok: false } {
  const plain = joinFailure(url, reason);
  if (plain.why === 'not-phoenix') return plain;
  const policy = /permission|polic|\brls\b/i.test(reason);
  return {
    ok: false,
    why: policy ? 'join-refused' : plain.why,
    line: `${url} refused the private join of ${join.topic} with ${join.whose} (${reason})${policy ? ': private channels need the RLS policies on realtime.messages that rtcap init --private --no-probe prints' : ''}`,
  };
}
