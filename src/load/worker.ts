/**
 * One generator process: holds its shard of the connections (global index i where
 * i mod workers = this worker), opens them on the open-model join schedule, drives the
 * broadcast and presence schedules for the senders it holds, and keeps the delivery ledger.
 * It reports a line of stats every second and the step's ledger when asked.
 */
import { Connection, type ConnectionHooks } from '../client/connection.js';
import type { ClassifiedError } from '../client/classify.js';
import { TokenSource } from '../client/auth.js';
import { nowMs } from '../measure/clock.js';
import { createHistogram, encodeHistogram, recordMs } from '../measure/histogram.js';
import { ReceiveLedger, SendLedger, streamId } from '../measure/ledger.js';
import { HealthMonitor } from '../measure/health.js';
import type { MemberInterval } from '../measure/membership.js';
import { EV } from '../protocol/constants.js';
import type { Frame } from '../protocol/frame.js';
import type { Stamp } from '../protocol/stamp.js';
import type { Profile } from '../profile/schema.js';
import type { ErrorClass } from '../report/result.js';
import { getScenario } from '../scenarios/index.js';
import type { ConnectionTraffic, StepPlan } from '../scenarios/types.js';
import type { FromWorker, StepCollected, ToWorker, TokenConfig } from './ipc.js';
import { OpenSchedule } from './schedule.js';
import { BenchSender, joinPayload, PresenceSender, readChangeStamp, readPresenceStamps } from './traffic.js';

const MAX_ERROR_REASONS = 200;
/** Per-second lines fire just after the wall-clock second ends, so the second they name is over. */
const SECOND_TICK_OFFSET_MS = 5;

interface ConnMeta {
  topic: string;
  changesKey: string | null;
  scheduledMs: number;
  leftAtMs: number;
  step: number;
  token: string | null;
  userToken: string | null;
  attempt: number;
}

type Tag = 'broadcast' | 'presence';

export class GeneratorWorker implements ConnectionHooks {
  private index = 0;
  private workers = 1;
  private profile!: Profile;
  private url = '';
  private headers: Record<string, string> = {};
  private sourceAddresses: string[] = [];
  private tokens!: TokenSource;
  private userTokens!: TokenSource;
  private tokenConfig!: TokenConfig;

  private readonly conns = new Map<number, Connection>();
  private readonly meta = new Map<Connection, ConnMeta>();
  private readonly joining = new Set<Connection>();
  /** Joined with a postgres_changes binding, its "Subscribed to PostgreSQL" not in yet: the ramp waits for them (seed §6 reconciles before the rounds). */
  private readonly subscribing = new Set<Connection>();
  /** First attempts (the ramp's joins) still unanswered: reconnects must not hold the ramp back. */
  private rampOutstanding = 0;
  private readonly ledger = new ReceiveLedger();
  private readonly sends = new SendLedger(5);
  private readonly health = new HealthMonitor();
  private plan: StepPlan | null = null;
  private step = -1;
  private sender: BenchSender | null = null;
  private presenceSender: PresenceSender | null = null;

  // step counters
  private opened = 0;
  private joinedInStep = 0;
  private failed = 0;
  private disconnected = 0;
  private lateJoins = 0;
  private scheduledJoins = 0;
  private reconnects = 0;
  private subscribed = 0;
  private joinHist = createHistogram();
  private ackHist = createHistogram();
  /** phx_join push → ok reply: on private channels, mostly the RLS read check (§6.2). */
  private joinReplyHist = createHistogram();
  private commitHist = createHistogram();
  private errors = new Map<string, number>();
  private errorClasses: Record<ErrorClass, number> = { server: 0, network: 0, generator: 0, protocol: 0 };
  private acksOk = 0;
  private ackErrors = 0;
  private presenceOk = 0;
  private presenceErrors = 0;
  private snapshots = { count: 0, bytes: 0, maxBytes: 0, entries: 0 };
  private sendBufferPeak = 0;
  private sendStats = { scheduled: 0, unsent: 0 };
  private trafficRunning = 0;
  // live counts
  private openNow = 0;
  private joinedNow = 0;
  // per-second counters
  private secJoins = 0;
  private secErrors = 0;
  private secDisconnects = 0;
  private secErrorReasons = new Map<string, number>();

  private rampScheduling = false;
  private rampStep = -1;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private lastSecondReported = 0;

  constructor(private readonly post: (m: FromWorker) => void) {}

  handle(m: ToWorker): void {
    switch (m.type) {
      case 'init':
        this.init(m);
        return;
      case 'step':
        this.profile.load.steps[m.index] = m.spec;
        return;
      case 'ramp':
        this.beginStepIfNew(m.step);
        this.ramp(m.fromConn, m.toConn, m.startMs);
        return;
      case 'shrink':
        this.beginStepIfNew(m.step);
        this.shrink(m.toConn);
        return;
      case 'send':
        this.beginStepIfNew(m.step);
        this.runTraffic(m.startMs);
        return;
      case 'collect':
        this.post(this.collect());
        return;
      case 'stop':
        this.stop();
        return;
    }
  }

  private init(m: Extract<ToWorker, { type: 'init' }>): void {
    this.index = m.workerIndex;
    this.workers = m.workers;
    this.profile = m.profile;
    this.url = m.url;
    this.headers = m.headers;
    this.sourceAddresses = m.sourceAddresses;
    this.tokenConfig = m.tokens;
    const spec = { apikey: m.tokens.apikey, jwtSecret: m.tokens.jwtSecret, role: m.tokens.role, ttlMs: m.tokens.ttlMs, tokenFile: m.tokens.tokenFile };
    this.tokens = new TokenSource(spec);
    // Per-user tokens (private channels): minted with the same secret, claims from the plan.
    this.userTokens = new TokenSource({
      jwtSecret: m.tokens.jwtSecret,
      tokenFile: m.tokens.userTokenFile,
      role: 'authenticated',
      ttlMs: m.tokens.ttlMs,
      claims: (i) => this.plan?.userClaimsOf?.(i) ?? {},
    });
    this.startTimers();
    this.post({ type: 'ready', worker: this.index });
  }

  private beginStepIfNew(step: number): void {
    if (step === this.step) return;
    this.step = step;
    this.plan = getScenario(this.profile.scenario).plan(this.profile, step);
    this.sender = new BenchSender(this.profile, this.plan.payloadBytes);
    this.presenceSender = new PresenceSender(this.plan.payloadBytes);
    this.ledger.beginStep(step);
    this.subscribing.clear();
    // Stream ids are step-scoped; forget the previous step's per-stream sequence numbers.
    for (const c of this.conns.values()) {
      c.member.lastStream = -1;
      c.member.lastSeq = -1;
      c.member.seqByStream = null;
    }
    this.sends.beginStep(this.profile.load.late_threshold);
    this.opened = this.joinedInStep = this.failed = this.disconnected = this.lateJoins = this.scheduledJoins = 0;
    this.reconnects = this.subscribed = 0;
    this.joinHist = createHistogram();
    this.ackHist = createHistogram();
    this.joinReplyHist = createHistogram();
    this.commitHist = createHistogram();
    this.errors = new Map();
    this.errorClasses = { server: 0, network: 0, generator: 0, protocol: 0 };
    this.acksOk = this.ackErrors = this.presenceOk = this.presenceErrors = 0;
    this.snapshots = { count: 0, bytes: 0, maxBytes: 0, entries: 0 };
    this.sendBufferPeak = 0;
    this.sendStats = { scheduled: 0, unsent: 0 };
  }

  // ------------------------------------------------------------------ timers

  private startTimers(): void {
    // Per-second stats, aligned to wall-clock seconds so workers' lines line up.
    const tick = () => {
      if (this.stopped) return;
      this.reportSecond();
      this.timers[0] = setTimeout(tick, SECOND_TICK_OFFSET_MS + 1000 - (Date.now() % 1000));
    };
    this.timers[0] = setTimeout(tick, SECOND_TICK_OFFSET_MS + 1000 - (Date.now() % 1000));
    // Heartbeats: each connection every heartbeat_interval, spread evenly over it.
    const slots = Math.max(1, Math.round(this.profile.target.heartbeat_interval / 1000));
    let slot = 0;
    this.timers[1] = setInterval(() => {
      slot = (slot + 1) % slots;
      for (const [i, c] of this.conns) if (i % slots === slot) c.heartbeat();
    }, 1000);
    this.timers[2] = setInterval(() => {
      const now = nowMs();
      for (const c of this.joining) c.expireJoins(now, this.profile.target.join_timeout);
      let expired = false;
      for (const c of this.subscribing) {
        if (now - c.member.joinedAtMs <= this.profile.target.join_timeout) continue;
        this.subscribing.delete(c);
        this.countError({ class: 'server', reason: `postgres_changes: subscription not confirmed within ${this.profile.target.join_timeout} ms of the join` });
        expired = true;
      }
      if (expired) this.maybeRampDone();
    }, 250);
  }

  private reportSecond(): void {
    const sec = this.ledger.takeSecond();
    // The second that just ended; never the same one twice, even if a timer fired early.
    let t = Math.floor(Date.now() / 1000) - 1;
    if (t <= this.lastSecondReported) t = this.lastSecondReported + 1;
    this.lastSecondReported = t;
    this.post({
      type: 'second',
      worker: this.index,
      t,
      open: this.openNow,
      joined: this.joinedNow,
      joins: this.secJoins,
      sent: this.sends.sentThisSecond,
      received: sec.received,
      bytes: sec.bytes,
      errors: this.secErrors,
      disconnects: this.secDisconnects,
      histogram: encodeHistogram(sec.histogram),
      health: this.health.sample(),
      errorReasons: Object.fromEntries(this.secErrorReasons),
    });
    this.sends.sentThisSecond = 0;
    this.secJoins = this.secErrors = this.secDisconnects = 0;
    this.secErrorReasons = new Map();
  }

  // ------------------------------------------------------------------ ramp

  private mine(i: number): boolean {
    return i % this.workers === this.index;
  }

  private ramp(fromConn: number, toConn: number, startMs: number): void {
    const plan = this.plan!;
    const own: number[] = [];
    for (let i = fromConn; i < toConn; i++) if (this.mine(i)) own.push(i);
    this.rampStep = this.step;
    this.scheduledJoins += own.length;
    if (own.length === 0) {
      this.postRampDone();
      return;
    }
    const schedule = new OpenSchedule(startMs, plan.joinRatePerS);
    const lateMs = this.profile.load.late_threshold;
    let n = 0;
    this.rampScheduling = true;
    const tick = () => {
      if (this.stopped) return;
      const now = nowMs();
      while (n < own.length) {
        const i = own[n];
        const due = schedule.timeOf(i - fromConn);
        if (due > now) break;
        if (now - due > lateMs) this.lateJoins++;
        this.open(i, due, 0);
        n++;
      }
      if (n < own.length) {
        setTimeout(tick, Math.max(0, schedule.timeOf(own[n] - fromConn) - nowMs()));
      } else {
        this.rampScheduling = false;
        this.maybeRampDone();
      }
    };
    setTimeout(tick, Math.max(0, startMs - nowMs()));
  }

  private open(i: number, scheduledMs: number, attempt: number): void {
    const plan = this.plan!;
    const c = new Connection(i, this.profile.target.vsn, this);
    this.conns.set(i, c);
    const m: ConnMeta = {
      topic: plan.topicOf(i),
      changesKey: plan.changesKeyOf?.(i) ?? null,
      scheduledMs,
      leftAtMs: Infinity,
      step: this.step,
      token: null,
      userToken: null,
      attempt,
    };
    this.meta.set(c, m);
    this.joining.add(c);
    if (attempt === 0) this.rampOutstanding++;
    const wantsUserToken = Boolean(plan.userClaimsOf?.(i)) && this.userTokens.enabled;
    void Promise.all([this.tokens.tokenFor(i), wantsUserToken ? this.userTokens.tokenFor(i) : Promise.resolve(null)]).then(
      ([token, userToken]) => {
        if (this.stopped) return;
        m.token = token;
        m.userToken = userToken;
        const headers = { ...this.headers };
        let url = this.url;
        if (token && this.tokenConfig.apikeyIn === 'header') headers['x-api-key'] = token;
        else if (token) url += (url.includes('?') ? '&' : '?') + 'apikey=' + encodeURIComponent(token);
        const localAddress = this.sourceAddresses.length ? this.sourceAddresses[Math.floor(i / this.workers) % this.sourceAddresses.length] : undefined;
        c.connect({ url, headers, localAddress, handshakeTimeoutMs: this.profile.target.join_timeout });
      },
      (e: Error) => this.onError(c, { class: 'generator', reason: `token: ${e.message}` }, 'connect'),
    );
  }

  private postRampDone(): void {
    this.post({ type: 'rampDone', worker: this.index, step: this.step, joined: this.joinedNow, failed: this.failed, errors: Object.fromEntries(this.errors) });
  }

  private leaveJoining(c: Connection): boolean {
    if (!this.joining.delete(c)) return false;
    if (this.meta.get(c)?.attempt === 0) this.rampOutstanding--;
    return true;
  }

  private maybeRampDone(): void {
    if (this.rampScheduling || this.rampStep !== this.step) return;
    if (this.rampOutstanding > 0 || this.subscribing.size > 0) return;
    this.rampStep = -1;
    this.postRampDone();
  }

  private shrink(toConn: number): void {
    for (const [i, c] of this.conns) {
      if (i >= toConn) {
        this.endMembership(c);
        c.close(1000, 'step shrink');
        this.conns.delete(i);
      }
    }
  }

  /**
   * Reconnects a connection that failed or was dropped, after an exponential backoff with
   * jitter (load.reconnect), so a rejection storm is not answered by a synchronised one.
   */
  private maybeReconnect(c: Connection): void {
    const policy = this.plan?.reconnect;
    const m = this.meta.get(c);
    if (!policy || !m || this.stopped || this.conns.get(c.index) !== c || m.attempt >= policy.maxAttempts) return;
    const base = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * policy.multiplier ** m.attempt);
    const delay = base * (1 - policy.jitter + 2 * policy.jitter * Math.random());
    const step = this.step;
    setTimeout(() => {
      if (this.stopped || this.step !== step || this.conns.get(c.index) !== c) return;
      this.reconnects++;
      this.open(c.index, nowMs(), m.attempt + 1);
    }, delay);
  }

  // ------------------------------------------------------------------ traffic

  private runTraffic(startMs: number): void {
    const plan = this.plan!;
    setTimeout(() => this.health.resetWindow(), Math.max(0, startMs - nowMs()));
    const loops: Array<[ConnectionTraffic, Tag]> = [];
    if (plan.broadcasts && plan.broadcasts.count > 0) loops.push([plan.broadcasts, 'broadcast']);
    if (plan.presence && plan.presence.count > 0) loops.push([plan.presence, 'presence']);
    if (loops.length === 0) {
      this.post({ type: 'sendDone', worker: this.index, step: this.step });
      return;
    }
    this.trafficRunning = loops.length;
    for (const [traffic, tag] of loops) this.runSchedule(traffic, tag, startMs);
  }

  private runSchedule(traffic: ConnectionTraffic, tag: Tag, startMs: number): void {
    const plan = this.plan!;
    const schedule = new OpenSchedule(startMs, traffic.ratePerS);
    const total = traffic.count;
    const step = this.step;
    // Never skip a send silently: a generator behind schedule sends late (counted), and
    // only past a whole extra window does it give up and count the rest as unsent.
    const giveUpAtMs = startMs + 2 * plan.durationMs + 1000;
    let k = 0;
    const done = () => {
      if (--this.trafficRunning === 0) this.post({ type: 'sendDone', worker: this.index, step });
    };
    const tick = () => {
      if (this.stopped || this.step !== step) return;
      const now = nowMs();
      while (k < total) {
        const due = schedule.timeOf(k);
        if (due > now) break;
        const s = traffic.senderOf(k);
        if (this.mine(s.conn)) {
          this.sendStats.scheduled++;
          const c = this.conns.get(s.conn);
          const ok = c !== undefined && c.member.joinedAtMs > 0 && this.sendOne(c, tag, s.stream, s.seq, due);
          this.sends.record(s.stream, s.seq, due, ok ? nowMs() : NaN);
        }
        k++;
        if (now > giveUpAtMs) break;
      }
      if (k < total && nowMs() <= giveUpAtMs) {
        setTimeout(tick, Math.max(0, schedule.timeOf(k) - nowMs()));
        return;
      }
      for (; k < total; k++) {
        if (this.mine(traffic.senderOf(k).conn)) {
          this.sendStats.unsent++;
          this.sendStats.scheduled++;
        }
      }
      done();
    };
    setTimeout(tick, Math.max(0, startMs - nowMs()));
  }

  private sendOne(c: Connection, tag: Tag, localStream: number, seq: number, due: number): boolean {
    const topic = this.meta.get(c)!.topic;
    const stream = streamId(this.step, localStream);
    const ok = tag === 'broadcast' ? this.sender!.send(c, topic, stream, seq, due) : this.presenceSender!.send(c, topic, stream, seq, due);
    const buffered = c.ws?.bufferedAmount ?? 0;
    if (buffered > this.sendBufferPeak) this.sendBufferPeak = buffered;
    return ok;
  }

  // ------------------------------------------------------------------ collect

  private collect(): StepCollected {
    const snap = this.ledger.snapshot();
    const membership: Record<string, MemberInterval[]> = {};
    let openAtEnd = 0;
    let joinedAtEnd = 0;
    for (const [c, m] of this.meta) {
      if (c.state === 'open') openAtEnd++;
      if (c.member.joinedAtMs > 0 && m.leftAtMs === Infinity) joinedAtEnd++;
      if (c.member.joinedAtMs > 0) (membership[m.topic] ??= []).push({ joinedAtMs: c.member.joinedAtMs, leftAtMs: m.leftAtMs });
      if (m.changesKey && c.member.subscribedAtMs > 0) (membership[m.changesKey] ??= []).push({ joinedAtMs: c.member.subscribedAtMs, leftAtMs: m.leftAtMs });
    }
    // Connections gone for good are no longer needed once reported.
    for (const [c, m] of this.meta) if (c.state === 'closed' && m.leftAtMs !== Infinity && m.step < this.step) this.meta.delete(c);
    return {
      type: 'collected',
      worker: this.index,
      step: this.step,
      receipts: {
        streams: snap.streams,
        received: snap.received,
        duplicates: snap.duplicates,
        unexpected: snap.unexpected,
        stale: snap.stale,
        deliveryHistogram: encodeHistogram(snap.deliveryHistogram),
        kindHistograms: snap.kindHistograms.map(encodeHistogram),
      },
      sends: this.sends.snapshot(),
      sendStats: { scheduled: this.sendStats.scheduled, sent: this.sends.sent, failed: this.sends.failed, late: this.sends.late, unsent: this.sendStats.unsent },
      membership,
      connections: {
        opened: this.opened,
        joined: this.joinedInStep,
        failed: this.failed,
        disconnected: this.disconnected,
        openAtEnd,
        joinedAtEnd,
        lateJoins: this.lateJoins,
        scheduledJoins: this.scheduledJoins,
        reconnects: this.reconnects,
        subscribed: this.subscribed,
      },
      joinLatencyHistogram: encodeHistogram(this.joinHist),
      joinReplyLatencyHistogram: encodeHistogram(this.joinReplyHist),
      errors: Object.fromEntries(this.errors),
      errorClasses: { ...this.errorClasses },
      acks: { ok: this.acksOk, errors: this.ackErrors },
      ackLatencyHistogram: encodeHistogram(this.ackHist),
      presenceReplies: { ok: this.presenceOk, errors: this.presenceErrors },
      presenceSnapshots: { ...this.snapshots },
      commitLatencyHistogram: encodeHistogram(this.commitHist),
      sendBufferPeakBytes: this.sendBufferPeak,
      lagP99Ms: this.health.windowLagP99Ms(),
    };
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.health.stop();
    for (const c of this.conns.values()) c.close(1000, 'rtcap done');
  }

  // ------------------------------------------------------------------ hooks (hot path first)

  onStamp(c: Connection, stamp: Stamp, recvMs: number, bytes: number): void {
    this.ledger.record(c.member, stamp.stream, stamp.id, stamp.sentAtMs, recvMs, bytes);
  }

  onOpen(c: Connection): void {
    this.opened++;
    this.openNow++;
    const m = this.meta.get(c);
    if (!m) return;
    c.join(m.topic, joinPayload(this.profile, this.plan!.joinConfigOf(c.index), m.userToken ?? m.token));
  }

  onJoined(c: Connection, _topic: string, _response: unknown, replyMs: number): void {
    const m = this.meta.get(c);
    const now = nowMs();
    c.member.joinedAtMs = now;
    this.leaveJoining(c);
    this.joinedInStep++;
    this.joinedNow++;
    this.secJoins++;
    if (m) recordMs(this.joinHist, now - m.scheduledMs);
    recordMs(this.joinReplyHist, replyMs);
    if (m && this.plan?.joinConfigOf(c.index).presenceTrackOnJoin) this.presenceSender?.sendJoin(c, m.topic);
    if (m?.changesKey) this.subscribing.add(c);
    this.maybeRampDone();
  }

  onError(c: Connection, e: ClassifiedError, phase: 'connect' | 'join' | 'channel' | 'socket' | 'heartbeat' | 'frame'): void {
    this.countError(e);
    if (phase !== 'frame' && this.subscribing.delete(c)) this.maybeRampDone();
    if (phase === 'connect' || phase === 'join') {
      this.failed++;
      if (this.leaveJoining(c)) this.maybeRampDone();
      if (phase === 'join') c.close(1000, 'join failed');
      this.maybeReconnect(c);
      return;
    }
    if (phase === 'channel' || phase === 'socket' || phase === 'heartbeat') {
      if (this.endMembership(c)) {
        this.disconnected++;
        this.secDisconnects++;
        if (phase === 'channel') c.close(1000, 'channel closed');
        this.maybeReconnect(c);
      }
    }
  }

  onClosed(c: Connection, byUs: boolean): void {
    if (c.openedAtMs > 0) this.openNow--;
    if (this.subscribing.delete(c)) this.maybeRampDone();
    if (this.leaveJoining(c)) {
      // Closed before the join completed and not counted yet.
      if (!byUs) {
        this.failed++;
        this.maybeReconnect(c);
      }
      this.maybeRampDone();
    }
    if (this.endMembership(c) && !byUs) {
      this.disconnected++;
      this.secDisconnects++;
      this.maybeReconnect(c);
    }
  }

  onAck(_c: Connection, ok: boolean, reason: string | null, latencyMs: number, tag?: string): void {
    if (tag === 'presence') {
      if (ok) this.presenceOk++;
      else {
        this.presenceErrors++;
        this.countError({ class: 'server', reason: `presence track refused: ${reason}` });
      }
      return;
    }
    if (ok) {
      this.acksOk++;
      recordMs(this.ackHist, latencyMs);
    } else {
      this.ackErrors++;
      this.countError({ class: 'server', reason: `ack error: ${reason}` });
    }
  }

  /** Slow path: presence diffs, Postgres Changes and system messages. */
  onFrame(c: Connection, f: Frame): void {
    const recvMs = nowMs();
    switch (f.event) {
      case EV.presenceDiff:
        for (const s of readPresenceStamps(f.payload)) this.ledger.record(c.member, s.stream, s.id, s.sentAtMs, recvMs, 0);
        return;
      case EV.presenceState: {
        // Seed §5 "快照 174 KB/人": the snapshot a joining member downloads.
        const bytes = JSON.stringify(f.payload ?? {}).length;
        this.snapshots.count++;
        this.snapshots.bytes += bytes;
        if (bytes > this.snapshots.maxBytes) this.snapshots.maxBytes = bytes;
        if (f.payload && typeof f.payload === 'object') this.snapshots.entries += Object.keys(f.payload).length;
        return;
      }
      case EV.postgresChanges: {
        const s = readChangeStamp(f.payload);
        if (!s) return;
        this.ledger.record(c.member, s.stream, s.id, s.sentAtMs, recvMs, 0, c.member.subscribedAtMs);
        if (s.commitMs !== null) recordMs(this.commitHist, recvMs - s.commitMs);
        return;
      }
      case EV.system: {
        const p = f.payload as { extension?: string; status?: string } | null;
        if (p?.extension === EV.postgresChanges && p.status === 'ok' && c.member.subscribedAtMs === 0) {
          c.member.subscribedAtMs = recvMs;
          this.subscribed++;
          if (this.subscribing.delete(c)) this.maybeRampDone();
        }
        return;
      }
    }
  }

  /** Ends the connection's membership of its topic; true if it was a member. */
  private endMembership(c: Connection): boolean {
    const m = this.meta.get(c);
    if (!m || c.member.joinedAtMs === 0 || m.leftAtMs !== Infinity) return false;
    m.leftAtMs = nowMs();
    this.joinedNow--;
    return true;
  }

  private countError(e: ClassifiedError): void {
    this.errorClasses[e.class]++;
    this.secErrors++;
    let key = e.reason;
    if (!this.errors.has(key) && this.errors.size >= MAX_ERROR_REASONS) key = `(other ${e.class} errors)`;
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
    if (this.secErrorReasons.size < 20 || this.secErrorReasons.has(e.reason)) {
      this.secErrorReasons.set(e.reason, (this.secErrorReasons.get(e.reason) ?? 0) + 1);
    }
  }
}
