/**
 * What `rtcap init --kind phoenix` asks a plain Phoenix app before it writes a profile: does a
 * push on the profile's topic reach the topic's other members, and under which vsn? A Phoenix app
 * relays a push only when its channel says so (`handle_in` → `broadcast_from!`), and usually not
 * back to its sender, so two connections join the topic with the profile's join payload, one
 * pushes what the run pushes (a `broadcast` event carrying the run's stamp, protocol/stamp) and
 * the other waits for it: JSON frames under vsn 2.0.0 first, then vsn 1.0.0 (an app on an older
 * Phoenix). The first that delivers is what the profile gets, with the event the app relayed it
 * as (target.receive_event: a run counts only frames of that event as deliveries); when none
 * does, one line says what the channel lacks and nothing is written. Bounded: each wait is at
 * most `timeoutMs`.
 */
import { QConn } from '../client/qconn.js';
import { EV } from '../protocol/constants.js';
import type { Frame } from '../protocol/frame-types.js';
import { StampEncoder } from '../protocol/stamp.js';
import {
  ENCODINGS,
  arrival,
  closeProbe,
  connectFailure,
  encodingWords,
  joinFailure,
  probeTarget,
  type Arrival,
  type AttemptOutcome,
  type Encoding,
  type ProbeAnswer,
  type ProbeRequest,
} from './probe.js';

/** A Phoenix app gets JSON frames: vsn 2.0.0 arrays, then vsn 1.0.0 objects. */
const PHOENIX_ENCODINGS: readonly Encoding[] = ENCODINGS.filter((e) => !e.binary);

/** What the run pushes and, unless probed otherwise, receives (push_event, receive_event). */
const PUSH_EVENT = 'broadcast';

/** The probe stamp's stream: no run's (a run numbers its streams from 0), so it names the probe. */
const PROBE_STREAM = 999_999_999;

export async function probePhoenix(req: ProbeRequest): Promise<ProbeAnswer> {
  const topic = req.topic ?? 'room:lobby';
  const tried: string[] = [];
  for (const enc of PHOENIX_ENCODINGS) {
    const o = await relayed(req, topic, enc);
    if (o.kind === 'delivered') {
      const before = tried.length ? `; ${tried.join('; ')}` : '';
      const as = o.event ?? PUSH_EVENT;
      const other = as === PUSH_EVENT ? '' : ` as "${as}"`;
      return {
        ok: true,
        encoding: enc,
        ...(other ? { receiveEvent: as } : {}),
        line: `probed ${req.url}: a "${PUSH_EVENT}" push on ${topic} reached another member${other} under ${encodingWords(enc)} in ${o.ms} ms${before}: wrote vsn ${enc.vsn}${other ? `, receive_event: ${as}` : ''}`,
      };
    }
    if (o.kind === 'connect-failed') return connectFailure(req.url, o.reason);
    if (o.kind === 'join-refused') return joinFailure(req.url, o.reason);
    tried.push(
      `${encodingWords(enc)}: ${o.kind === 'closed' ? o.reason : `nothing arrived within ${req.timeoutMs} ms`}`,
    );
  }
  return {
    ok: false,
    why: 'no-delivery',
    line: `${req.url} joined ${topic}, but a "${PUSH_EVENT}" push by one member reached no other (${tried.join('; ')}): its channel must relay the push to the topic (handle_in("${PUSH_EVENT}", payload, socket) with broadcast_from!), as rtcap init --no-probe prints`,
  };
}

/** One encoding: a receiver and a sender join the topic, the sender pushes once. */
async function relayed(req: ProbeRequest, topic: string, enc: Encoding): Promise<AttemptOutcome> {
  let wait: Arrival | null = null;
  const events = {
    // A stamped frame of PUSH_EVENT comes as a delivery, found by its bytes as a run finds it; one
    // of another event as another frame, whose event the profile's receive_event then names.
    onStamp: (_c: QConn, s: { stream: number }) => s.stream === PROBE_STREAM && wait?.arrived(),
    onOtherFrame: (_c: QConn, f: Frame) =>
      f.topic === topic &&
      f.event !== EV.reply &&
      (f.payload as { s?: unknown } | null)?.s === PROBE_STREAM &&
      wait?.arrived(f.event),
    onSocketClosed: (_c: QConn, reason: string | null) =>
      wait?.gone(reason ?? 'the server closed the connection'),
  };
  const conns: QConn[] = [];
  try {
    for (const index of [0, 1]) {
      const target = { ...probeTarget(req, enc), deliveryEvent: PUSH_EVENT };
      const opened = await QConn.open(index, target, index === 0 ? events : {});
      if (!opened.ok) return { kind: 'connect-failed', reason: opened.reason };
      conns.push(opened.conn);
      const joined = await opened.conn.joinRaw(topic, req.joinPayload ?? {});
      if (!joined.ok) return { kind: 'join-refused', reason: joined.reason };
    }
    wait = arrival(req.timeoutMs);
    const stamp = new StampEncoder(0).payload(0, PROBE_STREAM, Date.now());
    if (!conns[1].push(topic, PUSH_EVENT, stamp, false))
      return { kind: 'closed', reason: 'the connection closed before the push' };
    return await wait.outcome;
  } finally {
    await Promise.all(conns.map((c) => closeProbe(c)));
  }
}
