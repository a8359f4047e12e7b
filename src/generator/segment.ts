/**
 * Segments: one run's plan split over N generator machines (`--segment i/N`). Connections are
 * owned by global index: connection c belongs to segment c mod N, and within the segment to
 * its local process — process w of segment i owns c with c mod (N × W) = i + N × w. So the
 * union of the segments is exactly the single-machine plan (same connections, join schedule,
 * senders and their streams and seqs), with no overlap and no gap.
 */
import { SENDER_BY_SEQ } from '../measure/ledger.js';
import { KIND_STRIDE } from '../measure/stream-id.js';
import { kindOfStream, type ConnectionTraffic, type StepPlan } from '../scenarios/types.js';

export interface Segment {
  /** 0 … count − 1 (a Kubernetes Indexed Job's completion index). */
  index: number;
  count: number;
}

export const WHOLE: Segment = { index: 0, count: 1 };

/**
 * Slack the shared `--start-at` schedule leaves after each step's planned ramp (joins answered
 * late) and after its longest drain (run/segment-schedule); a segment whose clock is off by more
 * runs its joins or sends outside the others'.
 */
export const ALIGN_MARGIN_MS = 2000;

/** "i/N" → segment, or a one-line reason. */
export function parseSegment(text: string): Segment | string {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return `--segment ${text}: give i/N, e.g. 0/3 (segment i of N, counted from 0)`;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index >= count) return `--segment ${text}: i must be 0 … N−1 and N at least 1`;
  return { index, count };
}

/**
 * The owner number and stride of a local process: it owns connection c when c mod owners = owner.
 */
export function ownershipOf(
  segment: Segment,
  workerIndex: number,
  workers: number,
): { owner: number; owners: number } {
  return { owner: segment.index + segment.count * workerIndex, owners: segment.count * workers };
}

/**
 * The step plan as a segment of `count` runs it. Relay traffic (ConnectionTraffic.relay: one
 * sender on a topic every connection shares) is sent by connection seq mod N, which is in
 * segment seq mod N, so every segment has senders of its own; streams, seqs and schedule are
 * the plan's, so the union is the one-machine plan. One segment (or fewer connections than
 * segments): the plan unchanged.
 */
export function segmentPlan(plan: StepPlan, count: number): StepPlan {
  const relayed = (t: ConnectionTraffic | null): ConnectionTraffic | null =>
    t && relays(plan, t, count)
      ? {
          ...t,
          senderOf: (k) => {
            const s = t.senderOf(k);
            return { ...s, conn: s.seq % count };
          },
        }
      : t;
  if (!relays(plan, plan.broadcasts, count) && !relays(plan, plan.presence, count)) return plan;
  return { ...plan, broadcasts: relayed(plan.broadcasts), presence: relayed(plan.presence) };
}

function relays(
  plan: Pick<StepPlan, 'connections'>,
  t: ConnectionTraffic | null,
  count: number,
): boolean {
  return t?.relay === true && count > 1 && plan.connections >= count;
}

/** A stream whose messages are sent by segment seq mod N (relay); the ledger's constant. */
export const BY_SEQ = SENDER_BY_SEQ;

/**
 * Which segment sends a local stream of the step (BY_SEQ: seq mod N decides). Connection c is
 * in segment c mod N; the coordinator's inserts of stream n are made by segment n mod N
 * (insertSegmentOf).
 */
export function streamSenderSegment(
  plan: Pick<StepPlan, 'connections' | 'broadcasts' | 'presence' | 'streamInfo'>,
  count: number,
): (localStream: number) => number {
  return (local) => {
    const kind = kindOfStream(local);
    const traffic =
      kind === 'broadcast' ? plan.broadcasts : kind === 'presence' ? plan.presence : null;
    if (relays(plan, traffic, count)) return BY_SEQ;
    const sender = plan.streamInfo(local).sender;
    return sender === null ? insertSegmentOf(local, count) : sender % count;
  };
}

/** The segment that sent message (local stream, seq). */
export function senderSegmentOf(
  plan: Pick<StepPlan, 'connections' | 'broadcasts' | 'presence' | 'streamInfo'>,
  count: number,
): (localStream: number, seq: number) => number {
  const bySegment = streamSenderSegment(plan, count);
  const cache = new Map<number, number>();
  return (local, seq) => {
    let g = cache.get(local);
    if (g === undefined) cache.set(local, (g = bySegment(local)));
    return g === BY_SEQ ? seq % count : g;
  };
}

/**
 * The segment that inserts the rows of local stream n (Postgres Changes): n mod N over the
 * kind's streams, so a stream's rows stay on one loader and commit in seq order (load/inserts).
 * With more segments than insert streams some segments insert nothing.
 */
export function insertSegmentOf(localStream: number, count: number): number {
  return (localStream % KIND_STRIDE) % count;
}
