/**
 * The recovery probe: before a search step, is the server back to its baseline? After an
 * overloaded step a server carries a backlog (queued frames, full mailboxes, a replication slot
 * behind) that the next step would be measured against: a step right after one past the knee
 * reads broken at a load the server carries.
 *
 * A probe is one connection of its own, a few round trips on the path the search loads
 * (recovery/paths: broadcasts to itself on the bench topic beside the step's members,
 * presence tracks and their diffs, inserts and their change events, private joins), each
 * started once the previous one came back, beside the connections the step left open. The
 * baseline is the probe taken right after the search's first stable step, its members still
 * joined and nothing arriving any more: the path at rest as the steps load it. Recovered: every
 * round trip came back, the median latency is within the tolerance (latency_factor × the
 * baseline's median + latency_margin_ms), and the members received nothing of an earlier step
 * in the last second (recovery/arrivals). Before the baseline exists, only the last two are
 * checked. Waiting is bounded (max_wait). When it runs out with the path still carrying
 * something, the step runs marked `recovered: false`: inconclusive, never the knee, run again
 * (sweep/plan); when nothing came back at all, the path is down (`path_down`) and the search
 * stops there (sweep/steps).
 */
import { TokenSource, userTokenSource, type TokenConfig } from '../client/auth.js';
import type { TlsOptions } from '../client/socket-open.js';
import { nowMs } from '../measure/clock.js';
import type { Vsn } from '../protocol/constants.js';
import type { Sweep } from '../profile/schema.js';
import { QConn, type QuotaTarget } from '../client/qconn.js';
import {
  PROBE_ARRIVAL_WORDS,
  PROBE_PATH_WORDS,
  pathProbe,
  type PathProbe,
  type ProbePath,
  type ProbePathKind,
} from './paths.js';
import { r1 } from '../util/round.js';
import { sleep } from '../util/sleep.js';

/** A probe message not back within this long counts as lost (and ends that probe). */
export const PROBE_MESSAGE_TIMEOUT_MS = 5_000;
/** Pause between two probes while waiting for the server to recover. */
export const PROBE_INTERVAL_MS = 1_000;

/** How the probe reaches the target: what the generator processes are given, once. */
export interface ProbeTarget {
  socketUrl: string;
  headers: Record<string, string>;
  vsn: Vsn;
  tokens: TokenConfig;
  tls?: TlsOptions;
  joinTimeoutMs: number;
  /** The path the search loads, which the probe exercises; absent: broadcasts. */
  path?: ProbePath;
  /** What the step's members still receive (recovery/arrivals); absent: not watched. */
  arrivals?: { stillArriving(atMs: number): number };
}

export interface ProbeSample {
  /** ISO time the probe started. */
  at: string;
  sent: number;
  received: number;
  p50_ms: number | null;
  max_ms: number | null;
  /** Why the probe could not run (connect or join refused); null when it ran. */
  error: string | null;
  /** The path was not ready (a subscription not confirmed): nothing was sent, nothing came back. */
  path_error?: string | null;
  /**
   * Deliveries of an earlier step the members received in the second before the probe ended
   * (absent: not watched).
   */
  still_arriving?: number;
}

/** What result.json keeps of the check before one step (a sweep point's `recovery`). */
export interface RecoveryRecord {
  /** The step whose preceding probe is the baseline; null: none yet (this probe may become it). */
  baseline_step: number | null;
  baseline: ProbeSample | null;
  /** Every probe before this step, in order (at most one per second of max_wait). */
  probes: ProbeSample[];
  /** Time spent probing and waiting before the step. */
  wait_ms: number;
  /**
   * true: back to the baseline (before the baseline exists: every round trip back and nothing of
   * an earlier step arriving); false: max_wait ran out first; null: not checked (before the first
   * step, or the probe could not connect).
   */
  recovered: boolean | null;
  /** Recovered: a probe median at most this (baseline × latency_factor + margin); null: none. */
  tolerance_ms?: number | null;
  note: string | null;
  /** The path the probes exercised (absent in results written before paths: broadcast). */
  path?: ProbePathKind;
  /** max_wait ran out and the last probe got nothing back: the path did not recover. */
  path_down?: boolean;
}

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
}

/** One probe: connect, join the path's probe topic, `messages` round trips in turn, close. */
export async function probeOnce(
  target: ProbeTarget,
  messages: number,
  tokens: TokenSource,
  joinTokens?: TokenSource,
): Promise<ProbeSample> {
  const at = new Date().toISOString();
  const empty = (error: string): ProbeSample => ({
    at,
    sent: 0,
    received: 0,
    p50_ms: null,
    max_ms: null,
    error,
  });
  const path = pathProbe(target.path ?? { kind: 'broadcast' });
  const q: QuotaTarget = {
    socketUrl: target.socketUrl,
    headers: target.headers,
    vsn: target.vsn,
    tokens,
    apikeyIn: target.tokens.apikeyIn,
    replyTimeoutMs: target.joinTimeoutMs,
    tls: target.tls,
    ...(joinTokens ? { joinTokens } : {}),
  };
  const opened = await QConn.open(0, q, path.events);
  if (!opened.ok) return empty(`probe connection refused: ${opened.reason}`);
  const conn = opened.conn;
  try {
    const ready = path.ready();
    const joined = await conn.join(path.topic, path.joinConfig);
    if (!joined.ok) return empty(`probe join refused: ${joined.reason}`);
    const notReady = await ready;
    if (notReady !== null) return { ...empty(''), error: null, path_error: notReady };
    const latencies = await roundTrips(conn, path, messages);
    const round = (v: number | null) => (v === null ? null : r1(v));
    return {
      at,
      sent: latencies.sent,
      received: latencies.ms.length,
      p50_ms: round(median(latencies.ms)),
      max_ms: round(latencies.ms.length ? Math.max(...latencies.ms) : null),
      error: null,
    };
  } finally {
    await closed(conn);
    await path.close();
  }
}

/** Round trips one after the other; the first lost (or slower than the timeout) ends them. */
async function roundTrips(
  conn: QConn,
  path: PathProbe,
  messages: number,
): Promise<{ sent: number; ms: number[] }> {
  const ms: number[] = [];
  let sent = 0;
  for (let i = 0; i < messages; i++) {
    const t0 = nowMs();
    let timer: NodeJS.Timeout | undefined;
    const back = new Promise<number | null>((resolve) => {
      timer = setTimeout(() => resolve(null), PROBE_MESSAGE_TIMEOUT_MS);
      path.onArrival = (atMs) => {
        clearTimeout(timer);
        resolve(atMs);
      };
    });
    if (!(await path.send(conn, i))) {
      clearTimeout(timer);
      break;
    }
    sent++;
    const atMs = await back;
    path.onArrival = null;
    if (atMs === null) break; // lost or slower than the timeout: this probe says enough
    ms.push(atMs - t0);
  }
  return { sent, ms };
}

/**
 * Closes the probe connection and waits for the close handshake (at most 2 s): a server that
 * counts users must have let the probe go before the step's connections join.
 */
async function closed(conn: QConn): Promise<void> {
  conn.close();
  for (let i = 0; i < 200 && !conn.closed; i++) await sleep(10);
}

/** Why a probe got nothing back, in words: its path's own error, else the arrival it missed. */
export function probeFailure(sample: ProbeSample, path: ProbePathKind): string {
  return sample.path_error ?? PROBE_ARRIVAL_WORDS[path];
}

/**
 * Postgres Changes: the probe joins with a user's token carrying the subscribers' claims, as
 * the step's subscribers do (generator/token-renewal), so the table's row-level security shows it
 * its rows; join rate: a user's token with the private role, as a step's joins carry; undefined
 * when no user token can be had (an API key only: the socket's is used).
 */
function userTokens(
  t: TokenConfig,
  path: Extract<ProbePath, { kind: 'postgres-changes' | 'join' }>,
): TokenSource | undefined {
  // A join-rate probe's user has the step's private role (a claim overrides the token's role).
  const role = path.kind === 'join' ? { role: path.role } : {};
  const source = userTokenSource(t, () => ({ ...path.claims, ...role }));
  return source.enabled ? source : undefined;
}

/** The probe median that still counts as recovered: baseline × latency_factor + margin. */
export function toleranceMs(baseline: ProbeSample | null, cfg: Sweep['recovery']): number | null {
  if (baseline?.p50_ms == null) return null;
  return r1(baseline.p50_ms * cfg.latency_factor + cfg.latency_margin_ms);
}

/**
 * Whether a probe shows the server back at its baseline: every round trip back, nothing of an
 * earlier step arriving, the median within the tolerance (no baseline yet: not compared).
 */
export function isRecovered(
  sample: ProbeSample,
  baseline: ProbeSample | null,
  cfg: Sweep['recovery'],
): boolean {
  if (sample.error !== null || sample.sent === 0 || sample.received < sample.sent) return false;
  if ((sample.still_arriving ?? 0) > 0) return false;
  if (baseline === null) return true;
  const tolerance = toleranceMs(baseline, cfg);
  if (sample.p50_ms === null || tolerance === null) return false;
  return sample.p50_ms <= tolerance;
}

export interface WaitArgs {
  target: ProbeTarget;
  cfg: Sweep['recovery'];
  baseline: { step: number; sample: ProbeSample } | null;
  /** Before the first step: one probe, nothing to recover from. */
  first?: boolean;
  /** The run's sleep: rejects when the run is aborted. */
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Probes until the server is back to the baseline or max_wait ran out; before the first step,
 * one probe and nothing to recover from. A probe that cannot connect or join is recorded and
 * ends the wait: the step runs, unmarked, and the note says why nothing was checked.
 */
export async function waitForRecovery(a: WaitArgs): Promise<RecoveryRecord> {
  const now = a.now ?? nowMs;
  const t0 = now();
  const path = a.target.path ?? { kind: 'broadcast' };
  const tokens = new TokenSource(a.target.tokens);
  const joinTokens =
    path.kind === 'postgres-changes' || path.kind === 'join'
      ? userTokens(a.target.tokens, path)
      : undefined;
  const record: RecoveryRecord = {
    baseline_step: a.baseline?.step ?? null,
    baseline: a.baseline?.sample ?? null,
    probes: [],
    wait_ms: 0,
    recovered: null,
    tolerance_ms: toleranceMs(a.baseline?.sample ?? null, a.cfg),
    note: null,
    path: path.kind,
  };
  for (;;) {
    const sample = await probeOnce(a.target, a.cfg.messages, tokens, joinTokens);
    if (a.target.arrivals) sample.still_arriving = a.target.arrivals.stillArriving(Date.now());
    record.probes.push(sample);
    record.wait_ms = Math.round(now() - t0);
    if (sample.error !== null) {
      record.note = `${sample.error}: the server's recovery was not checked`;
      return record;
    }
    if (a.first) return record;
    if (isRecovered(sample, a.baseline?.sample ?? null, a.cfg)) {
      record.recovered = true;
      return record;
    }
    if (now() - t0 + PROBE_INTERVAL_MS > a.cfg.max_wait) return timedOut(record, sample, a);
    await a.sleep(PROBE_INTERVAL_MS);
  }
}

/** max_wait ran out: the path is down (nothing came back) or still working off a backlog. */
function timedOut(record: RecoveryRecord, sample: ProbeSample, a: WaitArgs): RecoveryRecord {
  const kind = a.target.path?.kind ?? 'broadcast';
  const waited = `${(record.wait_ms / 1000).toFixed(1)} s (sweep.recovery.max_wait)`;
  record.recovered = false;
  if (sample.received === 0) {
    record.path_down = true;
    record.note = `${PROBE_PATH_WORDS[kind]} did not recover: ${probeFailure(sample, kind)}, probed for ${waited}`;
    return record;
  }
  const why: string[] = [];
  if (sample.still_arriving)
    why.push(`${sample.still_arriving} deliveries of an earlier step still arriving`);
  if (sample.received < sample.sent)
    why.push(`${sample.sent - sample.received} of ${sample.sent} round trips lost`);
  if (record.tolerance_ms != null && (sample.p50_ms ?? Infinity) > record.tolerance_ms)
    why.push(`probe p50 ${sample.p50_ms} ms over the tolerance ${record.tolerance_ms} ms`);
  const base = a.baseline ? `the baseline of step ${a.baseline.step}` : 'rest';
  record.note = `not back to ${base} after ${waited}${why.length ? ` (${why.join(', ')})` : ''}: measured while recovering, inconclusive`;
  return record;
}
