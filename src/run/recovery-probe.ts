/**
 * The recovery probe: before a search step, is the server back to the baseline it showed
 * before its first stable step? After an overloaded step a server carries a backlog (queued
 * frames, full mailboxes) that the next step would be measured against: a step right after
 * one past the knee reads broken at a load the server carries.
 *
 * A probe is one connection of its own on a topic of its own (`realtime:rtcap-probe`), a few
 * broadcasts to itself (self: true), each sent once the previous one came back: latency and
 * delivery of those messages through the server's fan-out, beside the connections the step
 * left open. Recovered: every probe message came back and the median latency is within
 * latency_factor × the baseline's median + latency_margin_ms. Waiting is bounded (max_wait);
 * a step run after the wait ran out is marked `recovered: false` and is never the knee.
 */
import { TokenSource } from '../client/auth.js';
import type { TlsOptions } from '../client/connection.js';
import type { TokenConfig } from '../load/ipc.js';
import { nowMs } from '../measure/clock.js';
import { EV, type Vsn } from '../protocol/constants.js';
import type { Sweep } from '../profile/schema.js';
import { QConn, type QuotaTarget } from './quotas/client.js';
import { r1 } from '../util/round.js';
import { sleep } from '../util/sleep.js';

export const PROBE_TOPIC = 'realtime:rtcap-probe';
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
  /** true: back to the baseline; false: max_wait ran out first; null: nothing to compare with. */
  recovered: boolean | null;
  note: string | null;
}

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
}

/** One probe: connect, join the probe topic, `messages` round trips one after the other, close. */
export async function probeOnce(
  target: ProbeTarget,
  messages: number,
  tokens: TokenSource,
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
  let arrived: ((atMs: number) => void) | null = null;
  const q: QuotaTarget = {
    socketUrl: target.socketUrl,
    headers: target.headers,
    vsn: target.vsn,
    tokens,
    apikeyIn: target.tokens.apikeyIn,
    replyTimeoutMs: target.joinTimeoutMs,
    tls: target.tls,
  };
  const opened = await QConn.open(0, q, {
    onBroadcast: (_c, topic, atMs) => topic === PROBE_TOPIC && arrived?.(atMs),
  });
  if (!opened.ok) return empty(`probe connection refused: ${opened.reason}`);
  const conn = opened.conn;
  try {
    const joined = await conn.join(PROBE_TOPIC, {
      broadcast: { ack: false, self: true },
      private: false,
    });
    if (!joined.ok) return empty(`probe join refused: ${joined.reason}`);
    const latencies: number[] = [];
    let sent = 0;
    for (let i = 0; i < messages; i++) {
      const t0 = nowMs();
      const back = new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), PROBE_MESSAGE_TIMEOUT_MS);
        arrived = (atMs) => {
          clearTimeout(timer);
          resolve(atMs);
        };
      });
      if (
        !conn.push(
          PROBE_TOPIC,
          EV.broadcast,
          { type: EV.broadcast, event: 'rtcap-probe', payload: { i } },
          false,
        )
      )
        break;
      sent++;
      const atMs = await back;
      arrived = null;
      if (atMs === null) break; // lost or slower than the timeout: this probe says enough
      latencies.push(atMs - t0);
    }
    const round = (v: number | null) => (v === null ? null : r1(v));
    return {
      at,
      sent,
      received: latencies.length,
      p50_ms: round(median(latencies)),
      max_ms: round(latencies.length ? Math.max(...latencies) : null),
      error: null,
    };
  } finally {
    await closed(conn);
  }
}

/**
 * Closes the probe connection and waits for the close handshake (at most 2 s): a server that
 * counts users must have let the probe go before the step's connections join.
 */
async function closed(conn: QConn): Promise<void> {
  conn.close();
  for (let i = 0; i < 200 && !conn.closed; i++) await sleep(10);
}

/** Whether a probe shows the server back at its baseline. */
export function isRecovered(
  sample: ProbeSample,
  baseline: ProbeSample,
  cfg: Sweep['recovery'],
): boolean {
  if (sample.error !== null || sample.sent === 0 || sample.received < sample.sent) return false;
  if (sample.p50_ms === null || baseline.p50_ms === null) return false;
  return sample.p50_ms <= baseline.p50_ms * cfg.latency_factor + cfg.latency_margin_ms;
}

export interface WaitArgs {
  target: ProbeTarget;
  cfg: Sweep['recovery'];
  baseline: { step: number; sample: ProbeSample } | null;
  /** The run's sleep: rejects when the run is aborted. */
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Probes until the server is back to the baseline or max_wait ran out; with no baseline yet,
 * one probe that may become it. A probe that cannot connect or join is recorded and ends the
 * wait: the step runs, unmarked, and the note says why nothing was checked.
 */
export async function waitForRecovery(a: WaitArgs): Promise<RecoveryRecord> {
  const now = a.now ?? nowMs;
  const t0 = now();
  const tokens = new TokenSource(a.target.tokens);
  const record: RecoveryRecord = {
    baseline_step: a.baseline?.step ?? null,
    baseline: a.baseline?.sample ?? null,
    probes: [],
    wait_ms: 0,
    recovered: null,
    note: null,
  };
  for (;;) {
    const sample = await probeOnce(a.target, a.cfg.messages, tokens);
    record.probes.push(sample);
    record.wait_ms = Math.round(now() - t0);
    if (sample.error !== null) {
      record.note = `${sample.error}: the server's recovery was not checked`;
      return record;
    }
    if (!a.baseline) return record;
    if (isRecovered(sample, a.baseline.sample, a.cfg)) {
      record.recovered = true;
      return record;
    }
    if (now() - t0 + PROBE_INTERVAL_MS > a.cfg.max_wait) {
      record.recovered = false;
      record.note = `not back to the baseline of step ${a.baseline.step} after ${(record.wait_ms / 1000).toFixed(1)} s (sweep.recovery.max_wait): measured while recovering`;
      return record;
    }
    await a.sleep(PROBE_INTERVAL_MS);
  }
}
