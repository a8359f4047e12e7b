/**
 * A small Phoenix-protocol server for tests whose behaviour is known exactly: it can delay
 * every delivery by a fixed time, drop a fixed share of deliveries (by hash, or exactly every
 * Nth), deliver every Nth message of a sender after its successor (reorder), echo to the
 * sender, refuse upgrades or every join after the first N, close every socket after a while,
 * close a sender at its first binary push, answer with malformed frames, leave every Nth acked
 * push unanswered, serve joins or broadcast pushes from a queue at a fixed rate, write every
 * delivery through one queue at a fixed rate (a serial writer) or through a queue per topic that
 * drains slower once overloaded (topicQueue), or write a test's own raw frames to each member
 * that joins and drop it when the test says.
 * It also tracks presence (a `presence_diff` to every member of the topic, the tracker's own
 * included) and confirms postgres_changes bindings (without ever sending a change), so mixed
 * steps can run against it. rtcap's figures against it must match what it was told to do (the
 * known-answer tests).
 */
import { createServer, type Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeFrame, encodeFrame } from '../../src/protocol/frame.js';
import { encodeUserBroadcast } from '../../src/protocol/frame-encode.js';
import type { Frame } from '../../src/protocol/frame-types.js';
import { decodeBinary } from '../../src/protocol/frame-decode.js';
import { EV, REASON, VSN_1, type Vsn } from '../../src/protocol/constants.js';
import { nowMs } from '../../src/measure/clock.js';

export interface TestServerOptions {
  /** Every delivery is written this long after the push arrived. */
  delayMs?: number;
  /** Share of (message, recipient) deliveries silently dropped, chosen by a hash. */
  dropShare?: number;
  /** Phoenix-app style: the sender receives its own broadcasts regardless of config. */
  echoToSender?: boolean;
  /** Event name of the fan-out (a Phoenix app's broadcast! event). */
  fanoutEvent?: string;
  /**
   * Phoenix-app style `{:reply, {:ok, payload}, socket}`: every broadcast push is answered with
   * its own payload, stamp and all (counted in stats.payloadReplies).
   */
  replyWithPayload?: boolean;
  /** Refuse every upgrade with this status and body. */
  refuse?: { status: number; body: string };
  /** Close every socket this long after the first broadcast arrived. */
  closeAllAfterMs?: number;
  /**
   * Close the socket of any member that pushes a binary broadcast with this code, the push not
   * delivered: Supabase Realtime v2.28 (vsn 2.0.0 cannot decode a binary push; close 1011).
   */
  closeOnBinaryPush?: number;
  /** Answer joins with garbage instead of a reply. */
  malformed?: boolean;
  /** Topic prefix that may be joined (others get "unmatched topic"). */
  topicPrefix?: string;
  /**
   * Of the pushes whose member asked for acks (config.broadcast.ack), every Nth gets no reply (10:
   * exactly 10 %).
   */
  ackSilenceEvery?: number;
  /**
   * Joins wait in one queue served at this fixed rate: each is answered 1/rate after the previous
   * one (or its arrival).
   */
  joinsPerS?: number;
  /**
   * Refuse every join once `joins` were accepted (counted over the server's life), with an error
   * reply carrying `reason`: a server that admits N joins and no more.
   */
  refuseJoinsAfter?: { joins: number; reason: string };
  /**
   * Answer the first N joins (counted over the server's life) and never any after them: a server
   * whose joins stall, the sockets left open (counted in stats.joinsHeld).
   */
  holdJoinsAfter?: number;
  /** Drop exactly every Nth (message, recipient) delivery, counted over the whole server. */
  dropEvery?: number;
  /**
   * Reorder: every Nth push of a sender is held, and delivered `reorderDelayMs` after its
   * successor was (or `reorderDelayMs` × 10 after it arrived when no successor comes).
   */
  reorder?: { every: number; delayMs: number };
  /**
   * Broadcast pushes (not presence tracks) wait in one queue served at this fixed rate: each is
   * acknowledged and fanned out 1/rate after the previous one (or its arrival).
   */
  broadcastsPerS?: number;
  /**
   * Of the presence updates (tracks of a member already tracked), every Nth gets no reply; its diff
   * still goes out.
   */
  trackSilenceEvery?: number;
  /**
   * A serial writer: every broadcast delivery (message, recipient) waits in one queue and is
   * written 1/deliveriesPerS after the previous one (or its arrival), so the server carries
   * exactly this many deliveries per second; above it the queue and the latency grow.
   */
  deliveriesPerS?: number;
  /**
   * The serial writer's credit after idle time, in ms of its rate (a token bucket of
   * deliveriesPerS × this / 1000 deliveries): a burst of arrivals that short is written at once,
   * so a stall of the sender does not queue the deliveries behind it, while over any window of
   * T seconds at most deliveriesPerS × (T + this / 1000) are written. Default 0: none.
   */
  deliveriesBurstMs?: number;
  /**
   * A queue per topic (a real server's per-topic process): every broadcast delivery of a topic
   * waits in that topic's queue, served at `deliveriesPerS`; once more than `overloadAfter`
   * deliveries wait, the topic is overloaded and serves at `deliveriesPerS × overloadedShare`
   * until its queue is empty again, so it drains its backlog slower than it filled it and keeps
   * it across steps. Other topics (a probe's own) are not slowed. `burstMs`: as deliveriesBurstMs.
   */
  topicQueue?: {
    deliveriesPerS: number;
    overloadAfter: number;
    overloadedShare: number;
    burstMs?: number;
  };
  /**
   * Called once per broadcast push, just before its first delivery is written, with the push's
   * topic, its payload (a v1/v2 JSON push's payload; a binary push's user payload bytes) and the
   * time (clock.nowMs): the server's own first-write time, which latency benchmarks subtract.
   */
  onFirstWrite?: (topic: string, payload: unknown, atMs: number) => void;
  /**
   * Called once a join is accepted (after its ok reply and any binding confirmation), with a
   * writer of raw frames to that member's socket: a string goes as a text frame, a Buffer as a
   * binary one, exactly as given (frames rtcap cannot use, whose counts the test knows).
   * `index` counts the accepted joins from 0.
   */
  onJoin?: (member: JoinedMember) => void;
  /**
   * Address to listen on (default 127.0.0.1): a network namespace's own address in the
   * namespace harness (test/support/netns.ts).
   */
  host?: string;
}

/** A member just joined, as onJoin sees it. */
export interface JoinedMember {
  index: number;
  topic: string;
  vsn: Vsn;
  /** Writes `data` as one frame (a string as text, a Buffer as binary) while the socket is open. */
  send(data: string | Buffer): void;
  /** Ends the member's TCP connection without a close frame (the client reads 1006). */
  drop(): void;
}

interface Member {
  ws: WebSocket;
  vsn: Vsn;
  topic: string;
  self: boolean;
  ack: boolean;
  /** config.presence.key; its first track is its presence join, later ones updates. */
  presenceKey: string;
  tracked: boolean;
  id: number;
  /** Highest push index written to this member, per sender socket id (reorder counting). */
  highest: Map<number, number>;
}

export interface TestServer {
  url: string;
  port: number;
  /**
   * What the server did: `deliveries` written, `dropped` on purpose; `reordered` of the
   * deliveries, those written after a later push of the same sender to the same member.
   * `pushes` are broadcast pushes; `presenceUpdates` the tracks of a member already tracked
   * (its first track is its join) and `presenceUpdateDiffs` the diffs written for them.
   */
  stats: {
    pushes: number;
    deliveries: number;
    dropped: number;
    reordered: number;
    joins: number;
    /** Joins never answered (holdJoinsAfter). */
    joinsHeld: number;
    acks: number;
    ackSilences: number;
    presenceUpdates: number;
    presenceUpdateDiffs: number;
    trackSilences: number;
    /** Sockets closed at a binary push (closeOnBinaryPush). */
    closedOnBinaryPush: number;
    /** Pushes answered with their own payload (replyWithPayload). */
    payloadReplies: number;
  };
  /** The Host header of every upgrade request, in order (a Realtime reads its tenant there). */
  upgradeHosts: string[];
  close(): Promise<void>;
}

/** Deterministic share: same (message, recipient) always drops or always delivers. */
function drops(msgKey: string, memberId: number, share: number): boolean {
  if (share <= 0) return false;
  let h = 2166136261;
  const s = `${msgKey}:${memberId}`;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0) / 4294967296 < share;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const http: Server = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const members = new Map<string, Set<Member>>();
  const stats = {
    pushes: 0,
    deliveries: 0,
    dropped: 0,
    reordered: 0,
    joins: 0,
    joinsHeld: 0,
    acks: 0,
    ackSilences: 0,
    presenceUpdates: 0,
    presenceUpdateDiffs: 0,
    trackSilences: 0,
    closedOnBinaryPush: 0,
    payloadReplies: 0,
  };
  let attempts = 0;
  const upgradeHosts: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (fn: () => void, ms: number) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  let nextId = 0;
  let presenceRefs = 0;
  let ackedPushes = 0;
  /**
   * When the join queue is next free (epoch ms); joins are answered at fixed intervals from there.
   */
  let joinQueueFreeAtMs = 0;
  /** The same for broadcast pushes (broadcastsPerS). */
  let pushQueueFreeAtMs = 0;
  const joinTimers = new Set<NodeJS.Timeout>();
  let closeTimer: NodeJS.Timeout | null = null;
  const writer = opts.deliveriesPerS
    ? serialWriter(opts.deliveriesPerS, opts.deliveriesBurstMs ?? 0)
    : null;
  const topicQueues = new Map<string, ReturnType<typeof topicWriter>>();
  const topicQueue = (topic: string) => {
    let q = topicQueues.get(topic);
    if (!q) topicQueues.set(topic, (q = topicWriter(opts.topicQueue!)));
    return q;
  };

  http.on('upgrade', (req, socket, head) => {
    upgradeHosts.push(req.headers.host ?? '');
    if (opts.refuse) {
      const body = opts.refuse.body;
      // The client may reset the connection once it has read the refusal: not this server's error.
      socket.on('error', () => undefined);
      socket.end(
        `HTTP/1.1 ${opts.refuse.status} Refused\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const vsn = (new URL(req.url ?? '/', 'http://x').searchParams.get('vsn') ?? VSN_1) as Vsn;
    wss.handleUpgrade(req, socket, head, (ws) => onSocket(ws, vsn));
  });

  function send(ws: WebSocket, vsn: Vsn, f: Frame) {
    if (ws.readyState === ws.OPEN) ws.send(encodeFrame(f, vsn, 'server'));
  }

  function onSocket(ws: WebSocket, vsn: Vsn) {
    const id = nextId++;
    const joined = new Map<string, Member>();
    let pushIndex = 0;
    /** The held push waiting for its successor (reorder). */
    let held: { deliver: () => void; timer: NodeJS.Timeout } | null = null;
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      let f: Frame;
      let binaryPayload: { userEvent: string; payload: Uint8Array } | null = null;
      try {
        if (isBinary && opts.closeOnBinaryPush !== undefined) {
          stats.closedOnBinaryPush++;
          ws.close(opts.closeOnBinaryPush, 'cannot decode a binary push');
          return;
        }
        if (isBinary) {
          const b = decodeBinary(data, 'client');
          if (b.kind !== 3) return;
          binaryPayload = { userEvent: b.userEvent, payload: b.payload };
          f = {
            joinRef: b.joinRef,
            ref: b.ref,
            topic: b.topic,
            event: EV.broadcast,
            payload: null,
          };
        } else {
          f = decodeFrame(data, false, vsn, 'client');
        }
      } catch {
        return;
      }
      if (f.event === EV.heartbeat) {
        send(ws, vsn, {
          joinRef: null,
          ref: f.ref,
          topic: f.topic,
          event: EV.reply,
          payload: { status: 'ok', response: {} },
        });
        return;
      }
      if (f.event === EV.join) {
        if (opts.malformed) {
          ws.send('this is not a phoenix frame {');
          return;
        }
        if (opts.topicPrefix && !f.topic.startsWith(opts.topicPrefix)) {
          send(ws, vsn, {
            joinRef: f.joinRef,
            ref: f.ref,
            topic: f.topic,
            event: EV.reply,
            payload: { status: 'error', response: { reason: 'unmatched topic' } },
          });
          return;
        }
        if (opts.refuseJoinsAfter && stats.joins >= opts.refuseJoinsAfter.joins) {
          send(ws, vsn, {
            joinRef: f.joinRef,
            ref: f.ref,
            topic: f.topic,
            event: EV.reply,
            payload: { status: 'error', response: { reason: opts.refuseJoinsAfter.reason } },
          });
          return;
        }
        // A stalled server: joins past the first N are never answered (the socket stays open).
        if (opts.holdJoinsAfter !== undefined && stats.joins >= opts.holdJoinsAfter) {
          stats.joinsHeld++;
          return;
        }
        const cfg = (
          f.payload as {
            config?: {
              broadcast?: { self?: boolean; ack?: boolean };
              presence?: { key?: string };
              postgres_changes?: unknown[];
            };
          } | null
        )?.config;
        const m: Member = {
          ws,
          vsn,
          topic: f.topic,
          self: Boolean(cfg?.broadcast?.self) || Boolean(opts.echoToSender),
          ack: Boolean(cfg?.broadcast?.ack),
          presenceKey: cfg?.presence?.key ?? '',
          tracked: false,
          id,
          highest: new Map(),
        };
        const subscribes = (cfg?.postgres_changes?.length ?? 0) > 0;
        const accept = () => {
          joined.set(f.topic, m);
          let set = members.get(f.topic);
          if (!set) members.set(f.topic, (set = new Set()));
          set.add(m);
          stats.joins++;
          send(ws, vsn, {
            joinRef: f.joinRef,
            ref: f.ref,
            topic: f.topic,
            event: EV.reply,
            payload: { status: 'ok', response: { postgres_changes: [] } },
          });
          // Bindings are confirmed as the server does (docs/PROTOCOL.md §7.2); no change ever
          // follows.
          if (subscribes) {
            send(ws, vsn, {
              joinRef: f.joinRef,
              ref: null,
              topic: f.topic,
              event: EV.system,
              payload: {
                extension: EV.postgresChanges,
                status: 'ok',
                message: REASON.subscribedToPostgres,
                channel: f.topic,
              },
            });
          }
          opts.onJoin?.({
            index: stats.joins - 1,
            topic: f.topic,
            vsn,
            send: (data) => {
              if (ws.readyState === ws.OPEN) ws.send(data);
            },
            drop: () => ws.terminate(),
          });
        };
        if (!opts.joinsPerS) {
          accept();
          return;
        }
        // One queue at a fixed service rate: absolute times, so a late timer does not slow it.
        const now = Date.now();
        joinQueueFreeAtMs = Math.max(now, joinQueueFreeAtMs) + 1000 / opts.joinsPerS;
        const timer = setTimeout(() => {
          joinTimers.delete(timer);
          if (ws.readyState === ws.OPEN) accept();
        }, joinQueueFreeAtMs - now);
        joinTimers.add(timer);
        return;
      }
      const sender = joined.get(f.topic);
      if (!sender) {
        send(ws, vsn, {
          joinRef: f.joinRef,
          ref: f.ref,
          topic: f.topic,
          event: EV.reply,
          payload: { status: 'error', response: { reason: 'unmatched topic' } },
        });
        return;
      }
      if (f.event === EV.presence) {
        track(sender, f);
        return;
      }
      stats.pushes++;
      if (opts.replyWithPayload && f.ref !== null) {
        stats.payloadReplies++;
        send(ws, vsn, {
          joinRef: f.joinRef,
          ref: f.ref,
          topic: f.topic,
          event: EV.reply,
          payload: { status: 'ok', response: f.payload },
        });
      }
      const ackIt = () => {
        if (!sender.ack || f.ref === null) return;
        ackedPushes++;
        if (opts.ackSilenceEvery && ackedPushes % opts.ackSilenceEvery === 0) stats.ackSilences++;
        else {
          stats.acks++;
          send(ws, vsn, {
            joinRef: f.joinRef,
            ref: f.ref,
            topic: f.topic,
            event: EV.reply,
            payload: { status: 'ok', response: {} },
          });
        }
      };
      if (opts.closeAllAfterMs !== undefined && !closeTimer) {
        closeTimer = setTimeout(() => {
          for (const c of wss.clients) c.close(1001, 'going away');
        }, opts.closeAllAfterMs);
      }
      const msgKey = String(stats.pushes);
      const index = pushIndex++;
      const fanoutEvent = opts.fanoutEvent ?? f.event;
      let written = false;
      const deliver = () => {
        for (const m of members.get(f.topic) ?? []) {
          if (m.ws === ws && !sender.self) continue;
          attempts++;
          if (
            drops(msgKey, m.id, opts.dropShare ?? 0) ||
            (opts.dropEvery !== undefined && attempts % opts.dropEvery === 0)
          ) {
            stats.dropped++;
            continue;
          }
          if (writer || opts.topicQueue) {
            (writer ?? topicQueue(f.topic)).push(() => {
              stats.deliveries++;
              writeDelivery(m);
            });
            continue;
          }
          stats.deliveries++;
          writeDelivery(m);
        }
      };
      const writeDelivery = (m: Member) => {
        if (!written) {
          written = true;
          opts.onFirstWrite?.(f.topic, binaryPayload ? binaryPayload.payload : f.payload, nowMs());
        }
        const highest = m.highest.get(id) ?? -1;
        if (index < highest) stats.reordered++;
        else m.highest.set(id, index);
        if (binaryPayload) {
          if (m.vsn === VSN_1) {
            send(m.ws, m.vsn, {
              joinRef: null,
              ref: null,
              topic: f.topic,
              event: EV.broadcast,
              payload: {
                type: 'broadcast',
                event: binaryPayload.userEvent,
                payload: JSON.parse(Buffer.from(binaryPayload.payload).toString()),
              },
            });
          } else if (m.ws.readyState === m.ws.OPEN) {
            m.ws.send(
              encodeUserBroadcast({
                topic: f.topic,
                userEvent: binaryPayload.userEvent,
                payload: binaryPayload.payload,
                encoding: 1,
              }),
            );
          }
        } else {
          send(m.ws, m.vsn, {
            joinRef: null,
            ref: null,
            topic: f.topic,
            event: fanoutEvent,
            payload: f.payload,
          });
        }
      };
      if (opts.broadcastsPerS) {
        // One queue at a fixed service rate: absolute times, so a late timer does not slow it.
        const now = Date.now();
        pushQueueFreeAtMs = Math.max(now, pushQueueFreeAtMs) + 1000 / opts.broadcastsPerS;
        later(() => {
          ackIt();
          deliver();
        }, pushQueueFreeAtMs - now);
        return;
      }
      ackIt();
      const r = opts.reorder;
      const deliverThenRelease = () => {
        deliver();
        // The held predecessor goes out after this one (unless this one is itself held).
        if (held && !(r && index % r.every === r.every - 1)) {
          const h = held;
          held = null;
          clearTimeout(h.timer);
          timers.delete(h.timer);
          later(h.deliver, r!.delayMs);
        }
      };
      if (r && index % r.every === r.every - 1) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (held?.timer === timer) held = null;
          deliver();
        }, r.delayMs * 10);
        timers.add(timer);
        held = { deliver, timer };
        return;
      }
      if (opts.delayMs) later(deliverThenRelease, opts.delayMs);
      else deliverThenRelease();
    });
    ws.on('close', () => {
      for (const m of joined.values()) members.get(m.topic)?.delete(m);
    });
  }

  /**
   * A presence track (docs/PROTOCOL.md §5): replied ok, its diff written to every member of the
   * topic, the tracker's own included.
   */
  function track(m: Member, f: Frame) {
    const p = f.payload as {
      type?: string;
      event?: string;
      payload?: Record<string, unknown>;
    } | null;
    if (p?.event !== 'track') return;
    const update = m.tracked;
    m.tracked = true;
    if (update) stats.presenceUpdates++;
    if (update && opts.trackSilenceEvery && stats.presenceUpdates % opts.trackSilenceEvery === 0)
      stats.trackSilences++;
    else
      send(m.ws, m.vsn, {
        joinRef: f.joinRef,
        ref: f.ref,
        topic: f.topic,
        event: EV.reply,
        payload: { status: 'ok', response: {} },
      });
    const diff = {
      joins: { [m.presenceKey]: { metas: [{ phx_ref: String(++presenceRefs), ...p.payload }] } },
      leaves: {},
    };
    for (const to of members.get(f.topic) ?? []) {
      send(to.ws, to.vsn, {
        joinRef: null,
        ref: null,
        topic: f.topic,
        event: EV.presenceDiff,
        payload: diff,
      });
      if (update) stats.presenceUpdateDiffs++;
    }
  }

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((r) => http.listen(0, host, () => r()));
  const port = (http.address() as { port: number }).port;
  return {
    url: `ws://${host}:${port}/socket/websocket`,
    port,
    stats,
    upgradeHosts,
    close: async () => {
      writer?.stop();
      for (const q of topicQueues.values()) q.stop();
      if (closeTimer) clearTimeout(closeTimer);
      for (const t of joinTimers) clearTimeout(t);
      for (const t of timers) clearTimeout(t);
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/**
 * One queue served at a fixed rate: each write is due 1/ratePerS after the previous one (or
 * when it arrived), on absolute times, so a late timer writes what is due at once and the
 * rate stays exact.
 */
function serialWriter(
  ratePerS: number,
  burstMs: number,
): { push(fn: () => void): void; stop(): void } {
  const queue: Array<{ atMs: number; fn: () => void }> = [];
  let head = 0;
  let freeAtMs = 0;
  let timer: NodeJS.Timeout | null = null;
  const pump = () => {
    timer = null;
    const now = Date.now();
    while (head < queue.length && queue[head].atMs <= now) queue[head++].fn();
    if (head > 4096) {
      queue.splice(0, head);
      head = 0;
    }
    if (head < queue.length) timer = setTimeout(pump, Math.max(1, queue[head].atMs - now));
  };
  return {
    push(fn) {
      // The writer's own clock may lag real time by the burst credit: after idle time the
      // next deliveries are due at once, at most burstMs of them.
      freeAtMs = Math.max(Date.now() - burstMs, freeAtMs) + 1000 / ratePerS;
      queue.push({ atMs: freeAtMs, fn });
      if (!timer) timer = setTimeout(pump, Math.max(0, queue[head].atMs - Date.now()));
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      queue.length = 0;
    },
  };
}

/**
 * One topic's queue (TestServerOptions.topicQueue): served at its rate, a credit of burstMs
 * after idle time; past overloadAfter waiting deliveries at the overloaded share of the rate
 * until the queue is empty. A pump every 2 ms serves what the credit allows.
 */
function topicWriter(cfg: NonNullable<TestServerOptions['topicQueue']>): {
  push(fn: () => void): void;
  stop(): void;
} {
  const queue: Array<() => void> = [];
  let head = 0;
  let credit = 0;
  let lastMs = Date.now();
  let overloaded = false;
  let timer: NodeJS.Timeout | null = null;
  const maxIdleCredit = (cfg.deliveriesPerS * (cfg.burstMs ?? 0)) / 1000;
  const pump = () => {
    timer = null;
    const now = Date.now();
    const rate = cfg.deliveriesPerS * (overloaded ? cfg.overloadedShare : 1);
    credit += ((now - lastMs) * rate) / 1000;
    lastMs = now;
    while (head < queue.length && credit >= 1) {
      credit -= 1;
      queue[head++]();
    }
    if (head > 4096) {
      queue.splice(0, head);
      head = 0;
    }
    if (head >= queue.length) overloaded = false;
    else timer = setTimeout(pump, 2);
  };
  return {
    push(fn) {
      if (head >= queue.length && !timer) {
        // Idle until now: at most the burst credit carried over.
        credit = Math.min(
          maxIdleCredit,
          credit + ((Date.now() - lastMs) * cfg.deliveriesPerS) / 1000,
        );
        lastMs = Date.now();
      }
      queue.push(fn);
      if (queue.length - head > cfg.overloadAfter) overloaded = true;
      if (!timer) timer = setTimeout(pump, 0);
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      queue.length = 0;
    },
  };
}
