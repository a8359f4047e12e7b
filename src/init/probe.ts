/**
 * What `rtcap init` asks a server before it writes a profile: which wire encoding carries a
 * broadcast there. One connection per encoding joins a topic of its own with `self: true`, sends
 * one broadcast and waits for it to come back: first a v2 binary push (what current realtime-js
 * sends under vsn 2.0.0, docs/PROTOCOL.md §2.3), then JSON text frames under vsn 2.0.0, then vsn
 * 1.0.0. A server that cannot decode binary pushes (Supabase Realtime v2.28 closes the connection
 * with 1011) falls through to the next. A server that cannot be reached, or does not speak
 * Phoenix channels, is named in one line and nothing is written. Bounded: each wait is at most
 * `timeoutMs`, and a connect that fails ends the probe.
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
  /** Each wait (connect, join reply, the broadcast back) is at most this long. */
  timeoutMs: number;
}

/** What one encoding did. */
export type AttemptOutcome =
  | { kind: 'delivered'; ms: number }
  | { kind: 'closed'; reason: string }
  | { kind: 'silent' }
  | { kind: 'connect-failed'; reason: string }
  | { kind: 'join-refused'; reason: string };

export type ProbeAnswer =
  | { ok: true; encoding: Encoding; line: string }
  | {
      ok: false;
      /** unreachable / refused / not Phoenix / its key rejected / join refused / nothing back. */
      why: 'unreachable' | 'refused' | 'not-phoenix' | 'rejected' | 'join-refused' | 'no-delivery';
      line: string;
    };

/** Tries the encodings in turn; the first that delivers is the answer. */
export async function probeServer(req: ProbeRequest): Promise<ProbeAnswer> {
  if (req.dialect === 'phoenix') return probePhoenix(req);
  const tried: string[] = [];
  for (const enc of ENCODINGS) {
    const o = await attempt(req, enc);
    if (o.kind === 'delivered') {
      const before = tried.length ? `; ${tried.join('; ')}` : '';
      return {
        ok: true,
        encoding: enc,
        line: `probed ${req.url}: a broadcast came back under ${encodingWords(enc)} in ${o.ms} ms${before}: wrote ${encodingWords(enc)}`,
      };
    }
    if (o.kind === 'connect-failed') return connectFailure(req.url, o.reason);
    if (o.kind === 'join-refused') return joinFailure(req.url, o.reason);
    tried.push(
      `${encodingWords(enc)}: ${o.kind === 'closed' ? o.reason : `nothing came back within ${req.timeoutMs} ms`}`,
    );
  }
  return {
    ok: false,
    why: 'no-delivery',
    line: `${req.url} joined, but no probe broadcast came back under any encoding (${tried.join('; ')}): is broadcast enabled for the tenant?`,
  };
}

/** A Phoenix app relays pushes its own way (and not to the sender): connect and join only. */
async function probePhoenix(req: ProbeRequest): Promise<ProbeAnswer> {
  const enc = ENCODINGS[1];
  const opened = await QConn.open(0, target(req, enc));
  if (!opened.ok) return connectFailure(req.url, opened.reason);
  try {
    const joined = await joinTopic(opened.conn, req);
    if (!joined.ok) return joinFailure(req.url, joined.reason);
    return {
      ok: true,
      encoding: enc,
      line: `probed ${req.url}: joined ${req.topic} under vsn 2.0.0 (whether your channel relays pushes shows in the run): wrote vsn 2.0.0`,
    };
  } finally {
    await closed(opened.conn);
  }
}

function target(req: ProbeRequest, enc: Encoding): QuotaTarget {
  return {
    socketUrl: buildSocketUrl(req.url, { vsn: enc.vsn }),
    headers: req.headers,
    vsn: enc.vsn,
    tokens: req.tokens,
    apikeyIn: req.apikeyIn,
    replyTimeoutMs: req.timeoutMs,
  };
}

function joinTopic(conn: QConn, req: ProbeRequest) {
  if (req.dialect === 'phoenix')
    return conn.joinRaw(req.topic ?? 'room:lobby', req.joinPayload ?? {});
  return conn.join(INIT_PROBE_TOPIC, { broadcast: { ack: false, self: true }, private: false });
}

/** One encoding: connect, join with self: true, one broadcast, wait for it or the close. */
async function attempt(req: ProbeRequest, enc: Encoding): Promise<AttemptOutcome> {
  let arrived: ((at: number) => void) | null = null;
  let gone: ((reason: string) => void) | null = null;
  const opened = await QConn.open(0, target(req, enc), {
    onBroadcast: (_c, topic, at) => topic === INIT_PROBE_TOPIC && arrived?.(at),
    onSocketClosed: (_c, reason) => gone?.(reason ?? 'the server closed the connection'),
  });
  if (!opened.ok) return { kind: 'connect-failed', reason: opened.reason };
  const conn = opened.conn;
  try {
    const joined = await joinTopic(conn, req);
    if (!joined.ok) return { kind: 'join-refused', reason: joined.reason };
    const t0 = Date.now();
    const back = new Promise<AttemptOutcome>((resolve) => {
      const timer = setTimeout(() => resolve({ kind: 'silent' }), req.timeoutMs);
      arrived = () => {
        clearTimeout(timer);
        resolve({ kind: 'delivered', ms: Date.now() - t0 });
      };
      gone = (reason) => {
        clearTimeout(timer);
        resolve({ kind: 'closed', reason });
      };
    });
    const inner = { probe: 'rtcap init' };
    const sent = enc.binary
      ? conn.conn.push(INIT_PROBE_TOPIC, EV.broadcast, null, false, {
          userEvent: 'rtcap-probe',
          inner,
        })
      : conn.push(
          INIT_PROBE_TOPIC,
          EV.broadcast,
          { type: EV.broadcast, event: 'rtcap-probe', payload: inner },
          false,
        );
    if (!sent) return { kind: 'closed', reason: 'the connection closed before the push' };
    return await back;
  } finally {
    await closed(conn);
  }
}

/** Closes and waits for the close handshake (at most 1 s). */
async function closed(conn: QConn): Promise<void> {
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

function joinFailure(url: string, reason: string): ProbeAnswer & { ok: false } {
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
