/**
 * The receive ledger's record() as it was before exact duplicate and reorder classification (commit
 * 19c8ef8): only the last seq per stream per connection, so any seq not above it was a "duplicate"
 * (reorderings included). Kept in the bench only, so bench/hotpath.ts can show the cost of exact
 * duplicate/reorder classification beside it. Not used by rtcap.
 */
import { createHistogram, recordMs, type Histogram } from '../../src/measure/histogram.js';
import { StreamReceipts } from '../../src/measure/ledger.js';
import { KIND_COUNT, KIND_STRIDE, STREAM_STRIDE } from '../../src/measure/stream-id.js';

export interface OldMemberState {
  joinedAtMs: number;
  lastStream: number;
  lastSeq: number;
  seqByStream: Map<number, number> | null;
}

export function oldMemberState(joinedAtMs: number): OldMemberState {
  return { joinedAtMs, lastStream: -1, lastSeq: -1, seqByStream: null };
}

export class OldReceiveLedger {
  private streams: Array<StreamReceipts | undefined> = [];
  private base = 0;
  private kindHists: Histogram[] = Array.from({ length: KIND_COUNT }, createHistogram);
  private secondHist: Histogram = createHistogram();
  received = 0;
  duplicates = 0;
  unexpected = 0;
  stale = 0;
  receivedThisSecond = 0;
  bytesThisSecond = 0;

  record(
    m: OldMemberState,
    stream: number,
    seq: number,
    sentAtMs: number,
    recvMs: number,
    bytes: number,
    memberSinceMs = m.joinedAtMs,
  ): void {
    this.bytesThisSecond += bytes;
    const local = stream - this.base;
    if (local < 0 || local >= STREAM_STRIDE) {
      this.stale++;
      return;
    }
    if (memberSinceMs === 0 || sentAtMs < memberSinceMs) {
      this.unexpected++;
      return;
    }
    if (m.lastStream === stream) {
      if (seq <= m.lastSeq) {
        this.duplicates++;
        return;
      }
      m.lastSeq = seq;
    } else if (m.lastStream === -1) {
      m.lastStream = stream;
      m.lastSeq = seq;
    } else {
      const map = (m.seqByStream ??= new Map());
      const last = map.get(stream);
      if (last !== undefined && seq <= last) {
        this.duplicates++;
        return;
      }
      map.set(stream, seq);
    }
    let s = this.streams[local];
    if (s === undefined) s = this.streams[local] = new StreamReceipts();
    s.add(seq, recvMs);
    this.received++;
    this.receivedThisSecond++;
    const latencyMs = recvMs - sentAtMs;
    recordMs(this.secondHist, latencyMs);
    recordMs(this.kindHists[Math.min(KIND_COUNT - 1, Math.floor(local / KIND_STRIDE))], latencyMs);
  }
}
