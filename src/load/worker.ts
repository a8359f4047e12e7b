/**
 * One generator process: holds its shard of the connections (global index i where
 * i mod workers = this worker), opens them on the open-model join schedule, drives the
 * broadcast and presence schedules for the senders it holds, and keeps the delivery ledger.
 * It reports a line of stats every second and the step's ledger when asked.
 */
import { Connection, type ConnectionHooks, type TlsOptions } from '../client/connection.js';
import type { ClassifiedError } from '../client/classify.js';
import { TokenSource } from '../client/auth.js';
import { nowMs } from '../measure/clock.js';
import { encodeHistogram, recordMs } from '../measure/histogram.js';
import { ReceiveLedger, SendLedger, streamId } from '../measure/ledger.js';
import { HealthMonitor } from '../measure/health.js';
import type { MemberInterval } from '../measure/membership.js';
import { EV } from '../protocol/constants.js';
import type { Frame } from '../protocol/frame.js';
import type { Stamp } from '../protocol/stamp.js';
import type { Profile } from '../profile/schema.js';
import { getScenario } from '../scenarios/index.js';
import { ownershipOf, segmentPlan, streamSenderSegment, WHOLE, type Segment } from './segment.js';
import type { StepPlan } from '../scenarios/types.js';
import { encodeReceipts, type FromWorker, type StepCollected, type ToWorker, type TokenConfig } from './ipc.js';
import { AckTracker } from './ack-tracker.js';
import { realPacer } from './pacer.js';
import { RampDriver } from './ramp.js';
import { reconnectDelayMs } from './reconnect.js';
import { jwtExpiryMs, TokenRefreshSchedule } from './token-refresh.js';
import { OFFERED_GRACE_MS } from './schedule.js';
import { countError, countRampJoin, countSnapshot, newSecondCounters, newStepCounters } from './step-counters.js';
import { runTraffic, type TrafficTag } from './traffic-driver.js';
import { BenchSender, joinPayload, PresenceSender, readChangeStamp, readPresenceStamps } from './traffic.js';

/** Per-second lines fire just after the wall-clock second ends, so the second they name is over. */
const SECOND_TICK_OFFSET_MS = 5;
/** Token renewals per 250 ms tick at most: a ramp's worth of channels due together is spread out. */
const REFRESH_BATCH = 500;
/** When a token source had nothing newer yet, the channel asks again this much later. */
const REFRESH_RETRY_MS = 1_000;

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

export class GeneratorWorker implements ConnectionHooks {
  private index = 0;
  private workers = 1;
  /** Connection c is this process's when c mod owners = owner (load/segment: segments × processes). */
  private owner = 0;
  private owners = 1;
  private segment: Segment = WHOLE;
  private profile!: Profile;
  private url = '';
  private headers: Record<string, string> = {};
  private sourceAddresses: string[] = [];
  private tokens!: TokenSource;
  private userTokens!: TokenSource;
  /** Channels whose minted token is renewed before it expires (load/token-refresh); null when no token is minted. */
  private tokenRefresh: TokenRefreshSchedule<Connection> | null = null;
  private tls: TlsOptions | undefined;
  private tokenConfig!: TokenConfig;

  private readonly conns = new Map<number, Connection>();
  private readonly meta = new Map<Connection, ConnMeta>();
  private readonly joining = new Set<Connection>();
  /** Joined with a postgres_changes binding, its "Subscribed to PostgreSQL" not in yet: the ramp waits for them (seed §6 reconciles before the rounds). */
  private readonly subscribing = new Set<Connection>();
  private readonly ledger = new ReceiveLedger();
  private readonly sends = new SendLedger(5);
  private readonly health = new HealthMonitor();
  private acks!: AckTracker<Connection>;
  private tracks!: AckTracker<Connection>;
  private plan: StepPlan | null = null;
  private step = -1;
  private sender: BenchSender | null = null;
  private presenceSender: PresenceSender | null = null;

  /** This step's counters; replaced whole when a step begins. */
  private counters = newStepCounters();
  /** This second's counters; replaced whole each second. */
  private second = newSecondCounters();
  // live counts
  private openNow = 0;
  private joinedNow = 0;

  private readonly ramps = new RampDriver(realPacer, {
    currentStep: () => this.step,
    waitingSubscriptions: () => this.subscribing.size,
    rampDone: () => this.postRampDone(),
  });
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
    this.segment = m.segment ?? WHOLE;
    ({ owner: this.owner, owners: this.owners } = ownershipOf(this.segment, m.workerIndex, m.workers));
    this.profile = m.profile;
    this.url = m.url;
    this.headers = m.headers;
    this.sourceAddresses = m.sourceAddresses;
    this.tokenConfig = m.tokens;
    this.acks = new AckTracker<Connection>(m.profile.load.ack_timeout, (c, ref) => c.forget(ref));
    // Presence tracks wait for their reply in the same bounded way as acked broadcasts: a server
    // that never answers them must not grow the connections' pending maps without limit.
    this.tracks = new AckTracker<Connection>(m.profile.load.ack_timeout, (c, ref) => c.forget(ref));
    this.tls = m.tls;
    const spec = {
      apikey: m.tokens.apikey,
      jwtSecret: m.tokens.jwtSecret,
      role: m.tokens.role,
      ttlMs: m.tokens.ttlMs,
      tokenFile: m.tokens.tokenFile,
      privateKeyFile: m.tokens.privateKeyFile,
      alg: m.tokens.alg,
      kid: m.tokens.kid,
    };
    this.tokens = new TokenSource(spec);
    // Per-user tokens (private channels): minted with the same secret, claims from the plan.
    this.userTokens = new TokenSource({
      jwtSecret: m.tokens.jwtSecret,
      privateKeyFile: m.tokens.privateKeyFile,
      alg: m.tokens.alg,
      kid: m.tokens.kid,
      tokenFile: m.tokens.userTokenFile,
      role: 'authenticated',
      ttlMs: m.tokens.ttlMs,
      claims: (i) => this.plan?.userClaimsOf?.(i) ?? {},
    });
    if (this.tokens.mints || this.userTokens.mints) this.tokenRefresh = new TokenRefreshSchedule(m.tokens.ttlMs);
    this.startTimers();
    this.post({ type: 'ready', worker: this.index, rssMb: process.memoryUsage.rss() / 1048576 });
  }

  private beginStepIfNew(step: number): void {
    if (step === this.step) return;
    this.step = step;
    // A segment runs the plan with its relay senders (load/segment); one machine: the plan as is.
    this.plan = segmentPlan(getScenario(this.profile.scenario).plan(this.profile, step), this.segment.count);
    this.sender = new BenchSender(this.profile, this.plan.payloadBytes);
    this.presenceSender = new PresenceSender(this.plan.payloadBytes);
    const plan = this.plan;
    this.ledger.beginStep(step, { segment: this.segment.index, segments: this.segment.count, senderOf: streamSenderSegment(plan, this.segment.count) });
    this.subscribing.clear();
    this.sends.beginStep(this.profile.load.late_threshold);
    this.counters = newStepCounters();
    this.acks.countInto(this.counters.acks);
    this.tracks.countInto(this.counters.presenceTracks);
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
      // values(), not entries: a [key, value] array per connection per second was ~1 MB/s of
      // garbage in a process holding 12,500 idle connections (issue 12 goal 3).
      for (const c of this.conns.values()) if (c.index % slots === slot) c.heartbeat();
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
      if (expired) this.ramps.settle();
      this.acks.expire(now);
      this.refreshTokens(now);
      this.tracks.expire(now);
    }, 250);
  }

  private reportSecond(): void {
    const sec = this.ledger.takeSecond();
    const counted = this.second;
    this.second = newSecondCounters();
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
      joins: counted.joins,
      sent: this.sends.sentThisSecond,
      acked: this.acks.takeSecond(),
      acksPending: this.acks.size,
      received: sec.received,
      receivedByKind: sec.receivedByKind,
      bytes: sec.bytes,
      errors: counted.errors,
      disconnects: counted.disconnects,
      histogram: encodeHistogram(sec.histogram),
      health: this.health.sample(),
      errorReasons: Object.fromEntries(counted.errorReasons),
    });
    this.sends.sentThisSecond = 0;
  }

  // ------------------------------------------------------------------ ramp

  private mine(i: number): boolean {
    return i % this.owners === this.owner;
  }

  private ramp(fromConn: number, toConn: number, startMs: number): void {
    const lateMs = this.profile.load.late_threshold;
    this.counters.scheduledJoins += this.ramps.start({
      step: this.step,
      fromConn,
      toConn,
      startMs,
      joinRatePerS: this.plan!.joinRatePerS,
      mine: (i) => this.mine(i),
      open: (i, dueMs, lateByMs) => {
        if (lateByMs > lateMs) this.counters.lateJoins++;
        if (lateByMs > OFFERED_GRACE_MS) this.counters.rampJoins.behindSchedule++;
        this.open(i, dueMs, 0);
      },
      stopped: () => this.stopped,
    });
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
    if (attempt === 0) this.ramps.attemptOpened();
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
        const localAddress = this.sourceAddresses.length ? this.sourceAddresses[Math.floor(i / this.owners) % this.sourceAddresses.length] : undefined;
        c.connect({ url, headers, localAddress, handshakeTimeoutMs: this.profile.target.join_timeout, tls: this.tls });
      },
      (e: Error) => this.onError(c, { class: 'generator', reason: `token: ${e.message}` }, 'connect'),
    );
  }

  private postRampDone(): void {
    const k = this.counters;
    this.post({ type: 'rampDone', worker: this.index, step: this.step, joined: this.joinedNow, failed: k.failed, errors: Object.fromEntries(k.errors) });
  }

  private leaveJoining(c: Connection): boolean {
    if (!this.joining.delete(c)) return false;
    if (this.meta.get(c)?.attempt === 0) this.ramps.attemptAnswered();
    return true;
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

  /** Reconnects a connection that failed or was dropped, after its backoff (load/reconnect). */
  private maybeReconnect(c: Connection): void {
    const policy = this.plan?.reconnect;
    const m = this.meta.get(c);
    if (!policy || !m || this.stopped || this.conns.get(c.index) !== c) return;
    const delay = reconnectDelayMs(policy, m.attempt, Math.random());
    if (delay === null) return;
    const step = this.step;
    setTimeout(() => {
      if (this.stopped || this.step !== step || this.conns.get(c.index) !== c) return;
      this.counters.reconnects++;
      this.open(c.index, nowMs(), m.attempt + 1);
    }, delay);
  }

  // ------------------------------------------------------------------ traffic

  private runTraffic(startMs: number): void {
    const plan = this.plan!;
    const step = this.step;
    setTimeout(() => this.health.resetWindow(), Math.max(0, startMs - nowMs()));
    const loops: Array<{ traffic: NonNullable<StepPlan['broadcasts']>; tag: TrafficTag }> = [];
    if (plan.broadcasts) loops.push({ traffic: plan.broadcasts, tag: 'broadcast' });
    if (plan.presence) loops.push({ traffic: plan.presence, tag: 'presence' });
    runTraffic(realPacer, {
      startMs,
      durationMs: plan.durationMs,
      loops,
      mine: (i) => this.mine(i),
      send: (tag, conn, stream, seq, dueMs) => {
        const c = this.conns.get(conn);
        const ok = c !== undefined && c.member.joinedAtMs > 0 && this.sendOne(c, tag, stream, seq, dueMs);
        this.sends.record(stream, seq, dueMs, ok ? nowMs() : NaN);
        return ok;
      },
      stats: this.counters.sendStats,
      cancelled: () => this.stopped || this.step !== step,
      done: () => this.post({ type: 'sendDone', worker: this.index, step }),
    });
  }

  private sendOne(c: Connection, tag: TrafficTag, localStream: number, seq: number, due: number): boolean {
    const topic = this.meta.get(c)!.topic;
    const stream = streamId(this.step, localStream);
    const ok = tag === 'broadcast' ? this.sendBroadcast(c, topic, stream, seq, due) : this.sendTrack(c, due, (ackId) => this.presenceSender!.send(c, topic, stream, seq, due, ackId));
    const buffered = c.ws?.bufferedAmount ?? 0;
    if (buffered > this.counters.sendBufferPeakBytes) this.counters.sendBufferPeakBytes = buffered;
    return ok;
  }

  /** A broadcast, with its ack awaited when the server is asked for one. */
  private sendBroadcast(c: Connection, topic: string, stream: number, seq: number, due: number): boolean {
    const sender = this.sender!;
    if (!sender.acked) return sender.send(c, topic, stream, seq, due);
    const ackId = this.acks.open(c, due, nowMs());
    const ok = sender.send(c, topic, stream, seq, due, ackId || undefined);
    if (ackId === 0) return ok;
    if (ok) this.acks.bind(ackId, c.lastRef);
    else this.acks.cancel(ackId);
    return ok;
  }

  /** A presence track, its reply awaited in the bounded tracker; sent without awaiting one when the tracker is full (counted untracked). */
  private sendTrack(c: Connection, due: number, send: (ackId: number) => boolean): boolean {
    const ackId = this.tracks.open(c, due, nowMs());
    const ok = send(ackId);
    if (ackId === 0) return ok;
    if (ok) this.tracks.bind(ackId, c.lastRef);
    else this.tracks.cancel(ackId);
    return ok;
  }

  // ------------------------------------------------------------------ collect

  private collect(): StepCollected {
    this.acks.endStep();
    this.tracks.endStep();
    const k = this.counters;
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
      segment: this.segment.index,
      receipts: encodeReceipts(snap),
      sends: this.sends.snapshot(),
      sendStats: { scheduled: k.sendStats.scheduled, sent: this.sends.sent, failed: this.sends.failed, late: this.sends.late, unsent: k.sendStats.unsent },
      membership,
      connections: {
        opened: k.opened,
        joined: k.joined,
        failed: k.failed,
        disconnected: k.disconnected,
        openAtEnd,
        joinedAtEnd,
        lateJoins: k.lateJoins,
        scheduledJoins: k.scheduledJoins,
        reconnects: k.reconnects,
        subscribed: k.subscribed,
      },
      joins: { ramp: { ...k.rampJoins }, rejoins: k.rejoins },
      joinLatencyHistogram: encodeHistogram(k.joinHist),
      joinReplyLatencyHistogram: encodeHistogram(k.joinReplyHist),
      errors: Object.fromEntries(k.errors),
      errorClasses: { ...k.errorClasses },
      acks: { ...k.acks },
      ackLatencyHistogram: encodeHistogram(k.ackHist),
      presenceReplies: { ok: k.presenceTracks.ok, errors: k.presenceTracks.errors },
      presenceTracks: { unanswered: k.presenceTracks.unacked, untracked: k.presenceTracks.untracked },
      presenceSnapshots: { ...k.snapshots },
      commitLatencyHistogram: encodeHistogram(k.commitHist),
      sendBufferPeakBytes: k.sendBufferPeakBytes,
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
    this.counters.opened++;
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
    const k = this.counters;
    k.joined++;
    this.joinedNow++;
    this.second.joins++;
    if (m) recordMs(k.joinHist, now - m.scheduledMs);
    // Only this step's ramp counts toward its join rate; reconnects are counted apart.
    if (m?.attempt === 0 && m.step === this.step) countRampJoin(k.rampJoins, now);
    else if (m && m.attempt > 0) k.rejoins++;
    recordMs(k.joinReplyHist, replyMs);
    if (m && this.plan?.joinConfigOf(c.index).presenceTrackOnJoin && this.presenceSender) {
      const sender = this.presenceSender;
      this.sendTrack(c, nowMs(), (ackId) => sender.sendJoin(c, m.topic, ackId));
    }
    if (m?.changesKey) this.subscribing.add(c);
    if (m) this.trackToken(c, m);
    this.ramps.settle();
  }

  // ------------------------------------------------------------------ token renewal

  /** The source of the token a channel joined with: the per-user one if it has one. */
  private tokenSourceOf(m: ConnMeta): TokenSource {
    return m.userToken ? this.userTokens : this.tokens;
  }

  private trackToken(c: Connection, m: ConnMeta): void {
    const token = m.userToken ?? m.token;
    if (!this.tokenRefresh || !token || !this.tokenSourceOf(m).mints) return;
    const expMs = jwtExpiryMs(token);
    if (expMs !== null) this.tokenRefresh.track(c, expMs);
  }

  /** Renews the tokens due: a fresh one from the channel's source, sent as an `access_token` push (no reply). */
  private refreshTokens(now: number): void {
    if (!this.tokenRefresh) return;
    for (const c of this.tokenRefresh.takeDue(now, REFRESH_BATCH)) {
      const m = this.meta.get(c);
      if (!m || m.leftAtMs !== Infinity) continue;
      const old = m.userToken ?? m.token;
      this.tokenSourceOf(m)
        .tokenFor(c.index)
        .then(
          (token) => {
            if (!token || this.stopped || m.leftAtMs !== Infinity) return;
            if (token === old) return this.tokenRefresh?.retryAt(c, nowMs() + REFRESH_RETRY_MS);
            if (m.userToken) m.userToken = token;
            else m.token = token;
            if (c.push(m.topic, EV.accessToken, { access_token: token }, false)) this.trackToken(c, m);
          },
          (e: Error) => this.countError({ class: 'generator', reason: `token: ${e.message}` }),
        );
    }
  }

  onError(c: Connection, e: ClassifiedError, phase: 'connect' | 'join' | 'channel' | 'socket' | 'heartbeat' | 'frame'): void {
    this.countError(e);
    if (phase !== 'frame' && this.subscribing.delete(c)) this.ramps.settle();
    if (phase === 'connect' || phase === 'join') {
      this.counters.failed++;
      if (this.leaveJoining(c)) this.ramps.settle();
      if (phase === 'join') c.close(1000, 'join failed');
      this.maybeReconnect(c);
      return;
    }
    if (phase === 'channel' || phase === 'socket' || phase === 'heartbeat') {
      if (this.endMembership(c)) {
        this.counters.disconnected++;
        this.second.disconnects++;
        if (phase === 'channel') c.close(1000, 'channel closed');
        this.maybeReconnect(c);
      }
    }
  }

  onClosed(c: Connection, byUs: boolean): void {
    if (c.openedAtMs > 0) this.openNow--;
    if (this.subscribing.delete(c)) this.ramps.settle();
    if (this.leaveJoining(c)) {
      // Closed before the join completed and not counted yet.
      if (!byUs) {
        this.counters.failed++;
        this.maybeReconnect(c);
      }
      this.ramps.settle();
    }
    if (this.endMembership(c) && !byUs) {
      this.counters.disconnected++;
      this.second.disconnects++;
      this.maybeReconnect(c);
    }
  }

  onAck(_c: Connection, ok: boolean, reason: string | null, _latencyMs: number, tag?: string, ackId?: number): void {
    const k = this.counters;
    if (tag === 'presence') {
      // Only tracks still pending count: a reply after load.ack_timeout was counted unanswered.
      if (ackId === undefined || this.tracks.settle(ackId, ok, nowMs()) === null) return;
      if (!ok) this.countError({ class: 'server', reason: `presence track refused: ${reason}` });
      return;
    }
    // Only acks still pending count: a reply after load.ack_timeout was counted unacked already.
    const fromScheduledMs = ackId === undefined ? null : this.acks.settle(ackId, ok, nowMs());
    if (fromScheduledMs === null) return;
    if (ok) recordMs(k.ackHist, fromScheduledMs);
    else this.countError({ class: 'server', reason: `ack error: ${reason}` });
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
        countSnapshot(this.counters, bytes, f.payload && typeof f.payload === 'object' ? Object.keys(f.payload).length : 0);
        return;
      }
      case EV.postgresChanges: {
        const s = readChangeStamp(f.payload);
        if (!s) return;
        this.ledger.record(c.member, s.stream, s.id, s.sentAtMs, recvMs, 0, c.member.subscribedAtMs);
        if (s.commitMs !== null) recordMs(this.counters.commitHist, recvMs - s.commitMs);
        return;
      }
      case EV.system: {
        const p = f.payload as { extension?: string; status?: string } | null;
        if (p?.extension === EV.postgresChanges && p.status === 'ok' && c.member.subscribedAtMs === 0) {
          c.member.subscribedAtMs = recvMs;
          this.counters.subscribed++;
          if (this.subscribing.delete(c)) this.ramps.settle();
        }
        return;
      }
    }
  }

  /** Ends the connection's membership of its topic; true if it was a member. */
  private endMembership(c: Connection): boolean {
    this.tokenRefresh?.untrack(c);
    const m = this.meta.get(c);
    if (!m || c.member.joinedAtMs === 0 || m.leftAtMs !== Infinity) return false;
    m.leftAtMs = nowMs();
    this.joinedNow--;
    return true;
  }

  private countError(e: ClassifiedError): void {
    countError(this.counters, this.second, e);
  }
}
