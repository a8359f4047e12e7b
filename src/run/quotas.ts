/**
 * `rtcap quotas` (issue 5 §5): for each tenant quota the profile declares (PROTOCOL.md §8.2),
 * load just below it (no rejection allowed), just above it (rejections with the documented
 * reason required, their onset within a tolerance of the declared value), then back below
 * (the target must recover within its rate window). One pass/fail row per quota.
 *
 * Connections are driven directly (run/quota-client.ts), not through the run engine: a check
 * needs a few connections in phases whose every refusal is seen with its time and reason —
 * one socket joining N channels, acked payloads of an exact size, joins and leaves on an
 * open-model schedule — which the step model of runBenchmark does not express.
 *
 * How the onset is measured:
 * - counts (users, channels): the count admitted when the first refusal came;
 * - payload size: the smallest refused payload, by bisection between a size accepted below
 *   and one refused above (the target refuses a JSON payload over kb × 1000 + 500 bytes);
 * - rates (joins, events, presence events): the target averages its counter over a window
 *   (Supabase: 12 ticks of 5 s) and trips at a tick once the average reaches the limit, so the
 *   onset is the rate of the events the target counted over the window before the first
 *   refusal, from the client's own count of them.
 */
import { TokenSource } from '../client/auth.js';
import { buildSocketUrl } from '../client/url.js';
import { redactText } from '../redact/redact.js';
import { nowMs } from '../measure/clock.js';
import type { Profile, Quotas } from '../profile/schema.js';
import { CONNECT_ERROR_BACKOFF_MS, EV, REASON } from '../protocol/constants.js';
import { renderMarkdownTable, type ReportTable } from '../report/table.js';
import { makeRunId, RunWriter } from './output.js';
import { QConn, type QConnEvents, type QuotaTarget } from './quota-client.js';
import { BUILTIN_JWT_SECRET, startBuiltinServer, type BuiltinServer } from './target.js';

export const QUOTA_NAMES = [
  'max_payload_size_in_kb',
  'max_channels_per_client',
  'max_concurrent_users',
  'max_joins_per_second',
  'max_events_per_second',
  'max_presence_events_per_second',
] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** The refusal each quota must produce (a substring of the verbatim reason). */
export const QUOTA_REASONS: Record<QuotaName, string> = {
  max_payload_size_in_kb: REASON.payloadSizeExceeded,
  max_channels_per_client: REASON.joinTooManyChannels,
  max_concurrent_users: REASON.tooManyConnectedUsers,
  max_joins_per_second: REASON.tooManyJoins,
  max_events_per_second: REASON.tooManyMessages,
  max_presence_events_per_second: REASON.tooManyPresenceMessages,
};

const UNITS: Record<QuotaName, string> = {
  max_payload_size_in_kb: 'bytes',
  max_channels_per_client: 'channels',
  max_concurrent_users: 'users',
  max_joins_per_second: 'joins/s',
  max_events_per_second: 'events/s',
  max_presence_events_per_second: 'presence events/s',
};

export interface PhaseEvidence {
  /** What was offered, one line: "32 joins/s for 1.4 s (80 % of 40/s)". */
  load: string;
  accepted: number;
  rejections: number;
  /** Rejections by verbatim reason. */
  reasons: Record<string, number>;
}

export interface QuotaRow {
  quota: QuotaName;
  declared: number;
  unit: string;
  pass: boolean;
  expected_reason: string;
  /** Where refusals began, in `unit` (payload: bytes; the limit is kb × 1000 + 500). */
  onset: number | null;
  /** The onset the declared value implies. */
  expected_onset: number;
  below: PhaseEvidence;
  above: PhaseEvidence;
  recovery: PhaseEvidence & { recovered_after_ms: number | null; window_ms: number };
  /** Why the row failed, one line each. */
  failures: string[];
  /** One line of evidence for the table. */
  evidence: string;
}

export interface QuotaCheckOptions {
  target: QuotaTarget;
  quotas: Quotas;
  log: (line: string) => void;
  signal?: AbortSignal;
}

// ---------------------------------------------------------------------------- shared

interface Rejection {
  atMs: number;
  reason: string;
}

/** Events the target counts (accepted) and refusals, each with the time it happened. */
class Ledger {
  accepted: number[] = [];
  rejections: Rejection[] = [];
  reject(reason: string, atMs = nowMs()): void {
    this.rejections.push({ atMs, reason });
  }
  accept(atMs = nowMs(), n = 1): void {
    for (let i = 0; i < n; i++) this.accepted.push(atMs);
  }
  phase(fromMs: number, toMs: number, load: string): PhaseEvidence {
    const rej = this.rejections.filter((r) => r.atMs >= fromMs && r.atMs < toMs);
    const reasons: Record<string, number> = {};
    for (const r of rej) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
    return { load, accepted: this.accepted.filter((t) => t >= fromMs && t < toMs).length, rejections: rej.length, reasons };
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
const pct = (x: number) => `${Math.round(x * 100)} %`;
const num = (x: number) => (Number.isInteger(x) ? x.toLocaleString('en-US') : Number(x.toPrecision(4)).toLocaleString('en-US'));

function rowOf(
  quota: QuotaName,
  declared: number,
  expectedOnset: number,
  q: Quotas,
  ph: { below: PhaseEvidence; above: PhaseEvidence; recovery: QuotaRow['recovery'] },
  onset: number | null,
  extraFailures: string[] = [],
): QuotaRow {
  const expected = QUOTA_REASONS[quota];
  const unit = UNITS[quota];
  const failures = [...extraFailures];
  if (ph.below.rejections > 0) failures.push(`rejected below the declared value: ${ph.below.rejections} at ${ph.below.load} (${topReason(ph.below.reasons)})`);
  const expectedAbove = Object.entries(ph.above.reasons).filter(([r]) => r.includes(expected)).reduce((a, [, n]) => a + n, 0);
  if (expectedAbove === 0) {
    failures.push(ph.above.rejections === 0 ? `no rejection above the declared value (${ph.above.load})` : `rejections above, but not "${expected}": ${topReason(ph.above.reasons)}`);
  }
  const others = [ph.below, ph.above, ph.recovery].flatMap((p) => Object.keys(p.reasons)).filter((r) => !r.includes(expected));
  if (others.length) failures.push(`unexpected refusal: ${[...new Set(others)].join('; ')}`);
  if (onset === null) {
    if (expectedAbove > 0 || ph.below.rejections > 0) failures.push('onset not measurable');
  } else if (Math.abs(onset - expectedOnset) > q.tolerance * expectedOnset) {
    failures.push(`onset ${num(onset)} ${unit} is ${pct(onset / expectedOnset - 1)} off the declared ${num(expectedOnset)} ${unit} (tolerance ${pct(q.tolerance)})`);
  }
  const rec = ph.recovery;
  if (rec.recovered_after_ms === null) failures.push(`not recovered back below (${rec.load}; window ${num(rec.window_ms / 1000)} s)`);
  else if (rec.recovered_after_ms > rec.window_ms) failures.push(`recovered only after ${num(rec.recovered_after_ms / 1000)} s, window ${num(rec.window_ms / 1000)} s`);
  const onsetText = onset === null ? 'no onset' : `onset ${num(onset)} ${unit} (${onset >= expectedOnset ? '+' : ''}${((onset / expectedOnset - 1) * 100).toFixed(1)} %)`;
  const evidence = [
    `below ${ph.below.load}: ${ph.below.rejections} rejected`,
    `above ${ph.above.load}: ${expectedAbove} "${expected}", ${onsetText}`,
    `back below: ${rec.recovered_after_ms === null ? 'not recovered' : rec.rejections === 0 ? 'no refusal' : `recovered after ${num(rec.recovered_after_ms / 1000)} s`}`,
  ].join('; ');
  return { quota, declared, unit, pass: failures.length === 0, expected_reason: expected, onset, expected_onset: expectedOnset, below: ph.below, above: ph.above, recovery: ph.recovery, failures, evidence };
}

function topReason(reasons: Record<string, number>): string {
  const e = Object.entries(reasons).sort((a, b) => b[1] - a[1]);
  return e.length ? e.map(([r, n]) => `${r} ×${n}`).join(', ') : 'none';
}

/** Open connections of a check: heartbeats while it runs, closed at its end. */
class Pool {
  readonly all = new Set<QConn>();
  private seq = 0;
  private readonly hb: NodeJS.Timeout;
  constructor(
    readonly target: QuotaTarget,
    heartbeatMs = 20_000,
  ) {
    this.hb = setInterval(() => {
      for (const c of this.all) c.heartbeat();
    }, heartbeatMs);
    this.hb.unref();
  }
  async open(events: QConnEvents = {}): Promise<QConn | { reason: string; sentAtMs: number }> {
    const o = await QConn.open(this.seq++, this.target, events);
    if (!o.ok) return { reason: o.reason, sentAtMs: o.sentAtMs };
    this.all.add(o.conn);
    return o.conn;
  }
  drop(c: QConn): void {
    this.all.delete(c);
    c.close();
  }
  async closeAll(): Promise<void> {
    clearInterval(this.hb);
    for (const c of this.all) c.close();
    this.all.clear();
    await sleep(100);
  }
}

function refusalOf(reason: string): string {
  return reason.replace(/^join refused: /, '');
}

// ---------------------------------------------------------------------------- payload size

/** A broadcast push payload whose JSON is exactly `bytes` long (ASCII), as the target measures it. */
export function payloadOfSize(bytes: number): Record<string, unknown> {
  const base = JSON.stringify({ type: EV.broadcast, event: 'quota', payload: { p: '' } }).length;
  return { type: EV.broadcast, event: 'quota', payload: { p: 'x'.repeat(Math.max(0, bytes - base)) } };
}

async function checkPayload(o: QuotaCheckOptions, kb: number): Promise<QuotaRow> {
  const q = o.quotas;
  const limitBytes = kb * 1000 + 500;
  const pool = new Pool(o.target);
  const ledger = new Ledger();
  const topic = 'realtime:rtcap-quota-payload';
  try {
    const c = await pool.open();
    if (!(c instanceof QConn)) throw new QuotaAbort(`payload check: cannot connect: ${c.reason}`);
    const j = await c.join(topic, { broadcast: { ack: true, self: false } });
    if (!j.ok) throw new QuotaAbort(`payload check: join refused: ${refusalOf(j.reason)}`);
    const probe = async (bytes: number): Promise<boolean> => {
      const at = nowMs();
      const r = await c.push(topic, EV.broadcast, payloadOfSize(bytes), true);
      if (r.ok) ledger.accept(at);
      else ledger.reject(r.reason ?? 'error', at);
      return r.ok;
    };
    const belowBytes = Math.floor(q.below * kb * 1000);
    const aboveBytes = Math.ceil(q.above * limitBytes);
    const t0 = nowMs();
    const belowOk = await probe(belowBytes);
    const t1 = nowMs();
    const aboveOk = await probe(aboveBytes);
    // Bisection: the smallest refused size, to 0.05 % of the limit (about 12 probes).
    let onset: number | null = null;
    let lo = belowOk ? belowBytes : 0;
    let hi = aboveOk ? null : aboveBytes;
    if (!belowOk) hi = belowBytes;
    if (hi !== null) {
      for (let i = 0; i < 24 && hi - lo > Math.max(1, limitBytes * 0.0005); i++) {
        const mid = Math.floor((lo + hi) / 2);
        if (await probe(mid)) lo = mid;
        else hi = mid;
      }
      onset = hi;
    }
    const t2 = nowMs();
    const recovered = await probe(belowBytes);
    const t3 = nowMs();
    const below = ledger.phase(t0, t1, `${num(belowBytes)} B (${pct(q.below)} of ${num(kb)} KB)`);
    const above = ledger.phase(t1, t2, `${num(aboveBytes)} B (${pct(q.above)} of the ${num(limitBytes)} B limit)`);
    const rec = ledger.phase(t2, t3 + 1, `${num(belowBytes)} B`);
    return rowOf('max_payload_size_in_kb', kb, limitBytes, q, { below, above, recovery: { ...rec, recovered_after_ms: recovered ? t3 - t2 : null, window_ms: q.error_backoff + 1000 } }, onset);
  } finally {
    await pool.closeAll();
  }
}

// ---------------------------------------------------------------------------- counts

/** Joins paced under the join-rate quota when one is declared, so a count check never trips it. */
function joinPaceMs(q: Quotas): number {
  return q.max_joins_per_second ? 2000 / q.max_joins_per_second : 0;
}

async function checkChannels(o: QuotaCheckOptions, n: number): Promise<QuotaRow> {
  const q = o.quotas;
  const pool = new Pool(o.target);
  const ledger = new Ledger();
  const pace = joinPaceMs(q);
  try {
    const c = await pool.open();
    if (!(c instanceof QConn)) throw new QuotaAbort(`channels check: cannot connect: ${c.reason}`);
    const belowN = Math.max(1, Math.floor(q.below * n));
    const aboveN = Math.max(n + 1, Math.ceil(q.above * n));
    let joined = 0;
    let onset: number | null = null;
    let k = 0;
    const joinOne = async (): Promise<boolean> => {
      await sleep(pace);
      const r = await c.join(`realtime:rtcap-quota-ch-${k++}`, {});
      if (r.ok) {
        ledger.accept(r.sentAtMs);
        joined++;
        return true;
      }
      onset ??= joined;
      ledger.reject(refusalOf(r.reason), r.sentAtMs);
      return false;
    };
    const t0 = nowMs();
    // Each refusal may cost the target's error backoff: two are enough evidence in any phase.
    let belowRefusals = 0;
    while (joined < belowN && belowRefusals < 2 && !c.closed) if (!(await joinOne())) belowRefusals++;
    const t1 = nowMs();
    // Above: up to `above` × n attempts; stop one attempt after the first refusal.
    let refusals = 0;
    while (refusals < 2 && !c.closed && joined < aboveN) {
      if (!(await joinOne())) refusals++;
    }
    const t2 = nowMs();
    // Back below: leave down to one under `below`, then one more join must pass.
    const topics = [...c.joined];
    for (const t of topics.slice(0, Math.max(0, topics.length - (belowN - 1)))) c.leave(t);
    joined = Math.min(joined, belowN - 1);
    await sleep(200);
    const t3 = nowMs();
    const ok = await joinOne();
    const t4 = nowMs();
    const rec = ledger.phase(t3, t4 + 1, `${belowN} channels`);
    return rowOf(
      'max_channels_per_client',
      n,
      n,
      q,
      {
        below: ledger.phase(t0, t1, `${belowN} channels on one socket`),
        above: ledger.phase(t1, t2, `up to ${aboveN} channels`),
        recovery: { ...rec, recovered_after_ms: ok ? t4 - t3 : null, window_ms: q.error_backoff + 1000 },
      },
      onset,
    );
  } finally {
    await pool.closeAll();
  }
}

async function checkUsers(o: QuotaCheckOptions, n: number): Promise<QuotaRow> {
  const q = o.quotas;
  const pool = new Pool(o.target);
  const ledger = new Ledger();
  const pace = joinPaceMs(q);
  const topic = 'realtime:rtcap-quota-users';
  const users: QConn[] = [];
  try {
    let onset: number | null = null;
    const addUser = async (): Promise<boolean> => {
      await sleep(pace);
      const c = await pool.open();
      if (!(c instanceof QConn)) {
        onset ??= users.length;
        ledger.reject(c.reason, c.sentAtMs);
        return false;
      }
      const r = await c.join(topic, {});
      if (r.ok) {
        ledger.accept(r.sentAtMs);
        users.push(c);
        return true;
      }
      onset ??= users.length;
      ledger.reject(refusalOf(r.reason), r.sentAtMs);
      pool.drop(c);
      return false;
    };
    const belowN = Math.max(1, Math.floor(q.below * n));
    const aboveN = Math.max(n + 1, Math.ceil(q.above * n));
    const t0 = nowMs();
    // Each refusal may cost the target's connect or join backoff: two are enough evidence in any phase.
    let belowRefusals = 0;
    while (users.length < belowN && belowRefusals < 2) if (!(await addUser())) belowRefusals++;
    const t1 = nowMs();
    let refusals = 0;
    while (refusals < 2 && users.length < aboveN) if (!(await addUser())) refusals++;
    const t2 = nowMs();
    while (users.length > belowN - 1) pool.drop(users.pop()!);
    await sleep(300); // the target counts a user out when its socket closes
    const t3 = nowMs();
    const ok = await addUser();
    const t4 = nowMs();
    const rec = ledger.phase(t3, t4 + 1, `${belowN} users`);
    return rowOf(
      'max_concurrent_users',
      n,
      n,
      q,
      {
        below: ledger.phase(t0, t1, `${belowN} users`),
        above: ledger.phase(t1, t2, `up to ${aboveN} users`),
        recovery: { ...rec, recovered_after_ms: ok ? t4 - t3 : null, window_ms: q.error_backoff + 1000 },
      },
      onset,
    );
  } finally {
    await pool.closeAll();
  }
}

// ---------------------------------------------------------------------------- rates

/**
 * Spaces the rejoins of channels the target closed (events and presence checks), so they
 * stay under a declared join-rate quota and come at most once a rate tick.
 */
class JoinGate {
  private nextMs = 0;
  constructor(private readonly paceMs: number) {}
  async wait(): Promise<void> {
    const now = nowMs();
    const at = Math.max(now, this.nextMs);
    this.nextMs = at + this.paceMs;
    await sleep(at - now);
  }
}

function rejoinGate(q: Quotas): JoinGate {
  return new JoinGate(Math.max(joinPaceMs(q), q.rate_tick));
}

/** One rate quota's load: `act` offers one unit, which the target counts as `eventsPerAct` events. */
interface RateDriver {
  quota: QuotaName;
  eventsPerAct: number;
  ledger: Ledger;
  start(): Promise<void>;
  act(k: number): void;
}

/**
 * Open-model phases: act k is due at start + k / rate; a late act is made late, never
 * skipped. Ends at `durationMs` or when `until` says so; bounded either way.
 */
async function offer(rateActsPerS: number, durationMs: number, act: (k: number) => void, until: () => boolean, signal?: AbortSignal): Promise<void> {
  const start = nowMs();
  let k = 0;
  while (nowMs() - start < durationMs && !until() && !signal?.aborted) {
    const due = Math.floor(((nowMs() - start) / 1000) * rateActsPerS);
    for (; k <= due; k++) act(k);
    await sleep(5);
  }
}

/**
 * `counted`: times of the events the target counts toward this quota, from every check so far
 * (the joins of the count checks are in the join-rate window too); default the driver's own.
 */
async function checkRate(o: QuotaCheckOptions, declared: number, driver: RateDriver, counted?: readonly number[]): Promise<QuotaRow> {
  const q = o.quotas;
  const tickMs = q.rate_tick;
  const windowMs = tickMs * q.rate_buckets;
  const { ledger } = driver;
  const unit = UNITS[driver.quota];
  const actRate = (eventsPerS: number) => eventsPerS / driver.eventsPerAct;
  await driver.start();
  const first = () => ledger.rejections.find((r) => r.reason.includes(QUOTA_REASONS[driver.quota]));

  // Below for a whole window (plus two ticks), so the target's average reaches the offered rate.
  const t0 = nowMs();
  await offer(actRate(q.below * declared), windowMs + 2 * tickMs, (k) => driver.act(k), () => false, o.signal);
  const t1 = nowMs();
  // Above until the refusals are established (two ticks after the first), at most a window and two ticks.
  await offer(actRate(q.above * declared), windowMs + 2 * tickMs, (k) => driver.act(k), () => {
    const f = first();
    return f !== undefined && f.atMs >= t1 && nowMs() > f.atMs + 2 * tickMs;
  }, o.signal);
  const t2 = nowMs();
  await offer(actRate(q.below * declared), windowMs + 4 * tickMs, (k) => driver.act(k), () => false, o.signal);
  const t3 = nowMs();
  // Refusals may be answered after the target's error backoff; they count at their send time.
  await sleep(q.error_backoff + 300);

  const f = first();
  const onset = f ? (counted ?? ledger.accepted).filter((t) => t > f.atMs - windowMs && t <= f.atMs).length / (windowMs / 1000) : null;
  const recRejections = ledger.rejections.filter((r) => r.atMs >= t2 && r.atMs < t3);
  const lastRej = recRejections.length ? Math.max(...recRejections.map((r) => r.atMs)) : null;
  const acceptedAfter = ledger.accepted.some((t) => t >= t2 && t < t3 && (lastRej === null || t > lastRej));
  const recoveredAfterMs = !acceptedAfter ? null : lastRej === null ? 0 : lastRej - t2;
  const load = (share: number, durMs: number) => `${num(share * declared)} ${unit} for ${num(durMs / 1000)} s (${pct(share)} of ${num(declared)})`;
  return rowOf(
    driver.quota,
    declared,
    declared,
    q,
    {
      below: ledger.phase(t0, t1, load(q.below, t1 - t0)),
      above: ledger.phase(t1, t2, load(q.above, t2 - t1)),
      recovery: { ...ledger.phase(t2, t3, load(q.below, t3 - t2)), recovered_after_ms: recoveredAfterMs, window_ms: windowMs + 2 * tickMs },
    },
    onset,
  );
}

/** Joins: each act joins a fresh topic on an idle pooled socket and leaves it once joined. */
function joinsDriver(pool: Pool, q: Quotas): RateDriver {
  const ledger = new Ledger();
  const idle: QConn[] = [];
  let opening = 0;
  let live = 0;
  // Each pooled socket is a user: stay under a declared user quota.
  const cap = Math.max(1, Math.min(16, q.max_concurrent_users ? Math.floor(q.below * q.max_concurrent_users) - 1 : 16));
  const joinOn = (c: QConn, k: number) => {
    void c.join(`realtime:rtcap-quota-j-${k}`, {}).then((r) => {
      if (r.ok) {
        ledger.accept(r.sentAtMs);
        c.leave(`realtime:rtcap-quota-j-${k}`);
        idle.push(c);
      } else {
        ledger.reject(refusalOf(r.reason), r.sentAtMs);
        // The target closes the socket with the refusal (PROTOCOL.md §8.2); do not reuse it.
        live--;
        pool.drop(c);
      }
    });
  };
  return {
    quota: 'max_joins_per_second',
    eventsPerAct: 1,
    ledger,
    start: async () => undefined,
    act: (k) => {
      const c = idle.pop();
      if (c && !c.closed) return joinOn(c, k);
      if (c) live--;
      if (live + opening >= cap) return; // every socket busy: this join is not offered
      opening++;
      void pool.open().then((o) => {
        opening--;
        if (o instanceof QConn) {
          live++;
          joinOn(o, k);
        } else ledger.reject(o.reason, o.sentAtMs);
      });
    },
  };
}

/** Events: one sender broadcasting to one receiver — +1 per inbound broadcast, +1 per delivery. */
function eventsDriver(pool: Pool, q: Quotas): RateDriver {
  const ledger = new Ledger();
  const topic = 'realtime:rtcap-quota-events';
  let sender: QConn | null = null;
  let receiver: QConn | null = null;
  const gate = rejoinGate(q);
  const rejoin = (c: QConn) => {
    void gate
      .wait()
      .then(() => c.join(topic, {}))
      .then((r) => {
        if (!r.ok) ledger.reject(refusalOf(r.reason), r.sentAtMs);
      });
  };
  return {
    quota: 'max_events_per_second',
    eventsPerAct: 2,
    ledger,
    start: async () => {
      const s = await pool.open();
      const r = await pool.open({
        onBroadcast: (_c, _t, at) => ledger.accept(at),
        onChannelError: (_c, reason, at) => ledger.reject(reason, at),
        onChannelClosed: (c) => rejoin(c),
      });
      if (!(s instanceof QConn) || !(r instanceof QConn)) throw new QuotaAbort(`events check: cannot connect: ${[s, r].map((x) => (x instanceof QConn ? '' : x.reason)).join(' ')}`);
      for (const c of [s, r]) {
        const j = await c.join(topic, {});
        if (!j.ok) throw new QuotaAbort(`events check: join refused: ${refusalOf(j.reason)}`);
      }
      sender = s;
      receiver = r;
    },
    act: (k) => {
      if (!sender || !receiver) return;
      // The inbound broadcast counts even while the target is tripped (it closes recipients instead).
      if (sender.push(topic, EV.broadcast, { type: EV.broadcast, event: 'quota', payload: { k } }, false)) ledger.accept();
    },
  };
}

/** Presence: trackers updating in turn on one topic with an observer; each track counts once and once per other member's diff. */
function presenceDriver(pool: Pool, q: Quotas): RateDriver {
  const TRACKERS = 2;
  const ledger = new Ledger();
  const gate = rejoinGate(q);
  const topic = 'realtime:rtcap-quota-presence';
  const trackers: QConn[] = [];
  const config = (key: string) => ({ presence: { key, enabled: true } });
  const keyOf = new Map<QConn, string>();
  const events: QConnEvents = {
    onPresenceFrame: (_c, _kind, _t, at) => ledger.accept(at),
    onChannelError: (_c, reason, at) => ledger.reject(reason, at),
    onChannelClosed: (c) => {
      void gate
        .wait()
        .then(() => c.join(topic, config(keyOf.get(c) ?? '')))
        .then((r) => {
          if (!r.ok) ledger.reject(refusalOf(r.reason), r.sentAtMs);
        });
    },
  };
  return {
    quota: 'max_presence_events_per_second',
    // The track itself, then a diff to each other member: TRACKERS − 1 trackers and the observer.
    eventsPerAct: 1 + TRACKERS,
    ledger,
    start: async () => {
      for (let i = 0; i <= TRACKERS; i++) {
        const c = await pool.open(events);
        if (!(c instanceof QConn)) throw new QuotaAbort(`presence check: cannot connect: ${c.reason}`);
        keyOf.set(c, `rtcap-${i}`);
        const j = await c.join(topic, config(`rtcap-${i}`));
        if (!j.ok) throw new QuotaAbort(`presence check: join refused: ${refusalOf(j.reason)}`);
        if (i < TRACKERS) trackers.push(c);
      }
    },
    act: (k) => {
      const c = trackers[k % TRACKERS];
      if (!c.joined.has(topic)) return;
      const at = nowMs();
      // A changed payload every time: tracking an identical one is a no-op (PROTOCOL.md §5.1).
      void c.push(topic, EV.presence, { type: EV.presence, event: 'track', payload: { k } }, true).then((r) => {
        if (r.ok) ledger.accept(at);
      });
    },
  };
}

// ---------------------------------------------------------------------------- all

export class QuotaAbort extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuotaAbort';
  }
}

export function declaredQuotas(q: Quotas): Array<[QuotaName, number]> {
  return QUOTA_NAMES.filter((n) => q[n] !== undefined).map((n) => [n, q[n] as number]);
}

/** Checks every declared quota in turn (counts first, then rates); a check that cannot run at all throws QuotaAbort. */
export async function checkQuotas(opts: QuotaCheckOptions): Promise<QuotaRow[]> {
  const rows: QuotaRow[] = [];
  // Joins the target counted: every attempt it did not refuse for the join rate (§8.2: counted when it passes that check).
  const joinTimes: number[] = [];
  let rateWindowFilled = false;
  const o: QuotaCheckOptions = {
    ...opts,
    target: {
      ...opts.target,
      onJoin: (j) => {
        if (j.ok || !j.reason.includes(REASON.tooManyJoins)) joinTimes.push(j.sentAtMs);
        opts.target.onJoin?.(j);
      },
    },
  };
  for (const [name, declared] of declaredQuotas(o.quotas)) {
    if (o.signal?.aborted) break;
    o.log(`quota ${name} = ${num(declared)}: checking below, above and back below…`);
    let row: QuotaRow;
    if (name === 'max_payload_size_in_kb') row = await checkPayload(o, declared);
    else if (name === 'max_channels_per_client') row = await checkChannels(o, declared);
    else if (name === 'max_concurrent_users') row = await checkUsers(o, declared);
    else {
      if (!rateWindowFilled) {
        // A fresh tenant's counter averages over the ticks it has seen (PROTOCOL.md §8.1): a few
        // events in its first tick read as a high rate. One quiet window first fills it with idle ticks.
        const windowMs = o.quotas.rate_tick * (o.quotas.rate_buckets + 1);
        o.log(`waiting ${num(windowMs / 1000)} s (one rate window) so the target's counters average over a full window…`);
        await sleep(windowMs);
        rateWindowFilled = true;
      }
      const pool = new Pool(o.target);
      try {
        const driver = name === 'max_joins_per_second' ? joinsDriver(pool, o.quotas) : name === 'max_events_per_second' ? eventsDriver(pool, o.quotas) : presenceDriver(pool, o.quotas);
        row = await checkRate(o, declared, driver, name === 'max_joins_per_second' ? joinTimes : undefined);
      } finally {
        await pool.closeAll();
      }
    }
    o.log(`quota ${name}: ${row.pass ? 'pass' : 'FAIL'} — ${row.evidence}${row.failures.length ? ` — ${row.failures.join('; ')}` : ''}`);
    rows.push(row);
  }
  return rows;
}

// ---------------------------------------------------------------------------- a quotas run

export interface QuotasRunOptions {
  profile: Profile;
  profilePath: string | null;
  url?: string;
  outDir?: string;
  reportsDir?: string;
  serverCpus?: string | null;
  log: (line: string) => void;
  signal?: AbortSignal;
}

export interface QuotasReport {
  schema: 'rtcap.quotas/v1';
  run_id: string;
  profile: { name: string; path: string | null };
  target: { url: string; builtin: boolean; server_config: Record<string, unknown> | null };
  started_at: string;
  finished_at: string;
  /** Why the checks could not run, or null. */
  abort_reason: string | null;
  settings: Omit<Quotas, QuotaName>;
  pass: boolean;
  rows: QuotaRow[];
}

/** The tenant config the built-in server gets: the declared quotas, unless target.server.config sets them otherwise. */
export function builtinQuotaConfig(profile: Profile): Record<string, unknown> {
  const declared = Object.fromEntries(declaredQuotas(profile.quotas!));
  return { ...declared, ...profile.target.server.config };
}

export async function runQuotas(o: QuotasRunOptions): Promise<{ report: QuotasReport; dir: string }> {
  const { profile, log } = o;
  const q = profile.quotas;
  if (!q || declaredQuotas(q).length === 0) throw new QuotaAbort('the profile declares no quota (a `quotas:` section with max_joins_per_second, max_events_per_second, ...)');
  if (profile.target.dialect !== 'supabase') throw new QuotaAbort('quotas are Supabase Realtime tenant limits: target.dialect must be supabase');
  const startedAt = new Date();
  const runId = `${makeRunId(profile.name, startedAt)}-quotas`;
  const writer = RunWriter.forRun(o.outDir, o.reportsDir ?? 'reports', runId);
  let server: BuiltinServer | null = null;
  const settings = Object.fromEntries(Object.entries(q).filter(([k]) => !(QUOTA_NAMES as readonly string[]).includes(k))) as Omit<Quotas, QuotaName>;
  const report: QuotasReport = {
    schema: 'rtcap.quotas/v1',
    run_id: runId,
    profile: { name: profile.name, path: o.profilePath },
    target: { url: '', builtin: false, server_config: null },
    started_at: startedAt.toISOString(),
    finished_at: startedAt.toISOString(),
    abort_reason: null,
    settings,
    pass: false,
    rows: [],
  };
  try {
    let url = o.url ?? profile.target.url;
    if (!url) {
      const config = builtinQuotaConfig(profile);
      if (q.rate_buckets !== 12) log(`warning: the built-in server's rate window has 12 buckets; quotas.rate_buckets is ${q.rate_buckets}`);
      log('starting the built-in server (rtcap serve) with the declared quotas…');
      server = await startBuiltinServer({
        workers: profile.target.server.workers,
        config,
        database: false,
        cpus: o.serverCpus ?? null,
        logPath: writer.path('server.log'),
        signal: o.signal,
        extraArgs: ['--rate-tick-ms', String(q.rate_tick), '--channel-error-backoff-ms', String(q.error_backoff), '--connect-error-backoff-ms', String(Math.min(q.error_backoff, CONNECT_ERROR_BACKOFF_MS))],
      });
      url = server.url;
      report.target.server_config = config;
      report.target.builtin = true;
    }
    report.target.url = redactText(url);
    const auth = profile.target.auth;
    const tokens = new TokenSource({
      apikey: auth?.apikey,
      jwtSecret: auth?.jwt_secret ?? (server && !auth?.apikey && !auth?.token_file ? BUILTIN_JWT_SECRET : undefined),
      role: auth?.role ?? 'anon',
      ttlMs: auth?.token_ttl ?? 3_600_000,
      tokenFile: auth?.token_file,
    });
    const headers: Record<string, string> = { ...profile.target.headers };
    if (profile.target.host) headers.host = profile.target.host;
    const target: QuotaTarget = {
      socketUrl: buildSocketUrl(url, { vsn: profile.target.vsn, params: profile.target.params }),
      headers,
      vsn: profile.target.vsn,
      tokens,
      apikeyIn: auth?.apikey_in ?? 'query',
      replyTimeoutMs: q.error_backoff + profile.target.join_timeout,
    };
    log(`target: ${report.target.url}${server ? ` (built-in, rate tick ${q.rate_tick} ms × 12)` : ''}; below ${Math.round(q.below * 100)} %, above ${Math.round(q.above * 100)} %, onset tolerance ${Math.round(q.tolerance * 100)} %`);
    report.rows = await checkQuotas({ target, quotas: q, log, signal: o.signal });
    if (o.signal?.aborted) report.abort_reason = 'interrupted by the user (SIGINT/SIGTERM)';
  } catch (e) {
    if (!(e instanceof QuotaAbort) && !(e instanceof Error)) throw e;
    report.abort_reason = redactText((e as Error).message);
  } finally {
    if (server) await server.stop();
    report.finished_at = new Date().toISOString();
    report.pass = report.abort_reason === null && report.rows.length > 0 && report.rows.every((r) => r.pass);
    writer.writeText('quotas.json', JSON.stringify(report, null, 2) + '\n');
    writer.writeText('quotas.md', renderQuotasMarkdown(report));
  }
  return { report, dir: writer.dir };
}

export function quotasTable(report: QuotasReport): ReportTable {
  return {
    id: 'quotas',
    title: 'Tenant quotas',
    columns: ['quota', 'declared', 'result', 'evidence', 'why it failed'],
    align: ['left', 'right', 'left', 'left', 'left'],
    rows: report.rows.map((r) => [r.quota, `${num(r.declared)}${r.quota === 'max_payload_size_in_kb' ? ' KB' : ''}`, r.pass ? 'pass' : 'FAIL', r.evidence, r.failures.join('; ')]),
  };
}

export function renderQuotasMarkdown(report: QuotasReport): string {
  const out = [`# rtcap quotas: ${report.profile.name}`, '', `Target ${report.target.url || '—'}${report.target.builtin ? ' (built-in server)' : ''}; ${report.started_at} – ${report.finished_at}.`, ''];
  if (report.abort_reason) out.push(`**Could not finish:** ${report.abort_reason}`, '');
  out.push(`**${report.pass ? 'PASS' : 'FAIL'}** — ${report.rows.filter((r) => r.pass).length} of ${report.rows.length} quotas as declared.`, '');
  if (report.rows.length) out.push(renderMarkdownTable(quotasTable(report)), '');
  const s = report.settings;
  out.push(`Below = ${Math.round(s.below * 100)} % of the declared value (no rejection allowed); above = ${Math.round(s.above * 100)} % (rejections with the documented reason required, onset within ${Math.round(s.tolerance * 100)} %); back below: recovered within the rate window (${num((s.rate_tick * s.rate_buckets) / 1000)} s + two ticks).`, '');
  return out.join('\n');
}
