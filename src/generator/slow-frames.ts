/**
 * The receive slow path: frames without a raw-bytes stamp (client/connection hands them on
 * after protocol/stamp found none). Presence diffs and Postgres changes carry their stamps
 * under their own keys and go into the same ledger as broadcasts; presence_state snapshots
 * are counted by size; the system message confirming a Postgres Changes subscription marks
 * the member subscribed. Every other frame is one rtcap could not use, counted by why
 * (docs/FIGURES.md "Frames rtcap could not use"): nothing that arrived goes uncounted.
 */
import type { ReceiveLedger } from '../measure/ledger.js';
import type { MemberState } from '../measure/member-state.js';
import { recordMs } from '../measure/histogram.js';
import { EV, PROBE_EVENT } from '../protocol/constants.js';
import type { Frame } from '../protocol/frame-types.js';
import { countSnapshot, type StepCounters } from './step-counters.js';
import { readChangeStamp, readPresenceStamps } from './traffic.js';

/** Records one slow-path frame; true when it confirmed the member's subscription. */
export function recordSlowFrame(
  member: MemberState,
  f: Frame,
  recvMs: number,
  ledger: ReceiveLedger,
  counters: StepCounters,
): boolean {
  switch (f.event) {
    case EV.broadcast:
      // A broadcast's stamp is read from its bytes whatever the frame's encoding (protocol/stamp
      // scanStamp), so a broadcast here carries none that rtcap reads. A sweep's recovery probe
      // broadcasts on the bench topic between steps: rtcap's own traffic, not the server's.
      if (isProbeBroadcast(f.payload)) return false;
      if (isNullBroadcast(f.payload)) counters.frames.nullPayload++;
      else counters.frames.noStamp++;
      return false;
    case EV.presenceDiff:
      // A diff without stamped joins is rtcap's own traffic too (a track made on join, a
      // leave): only a diff with no payload at all is one rtcap could not use.
      if (f.payload === null || f.payload === undefined) counters.frames.nullPayload++;
      for (const s of readPresenceStamps(f.payload)) {
        ledger.record(member, s.stream, s.id, s.sentAtMs, recvMs, 0);
      }
      return false;
    case EV.presenceState: {
      // docs/METHOD.md §5 (a 174 KB snapshot per member): the state a joining member downloads.
      const bytes = JSON.stringify(f.payload ?? {}).length;
      const p = f.payload;
      const entries = p && typeof p === 'object' ? Object.keys(p).length : 0;
      countSnapshot(counters, bytes, entries);
      return false;
    }
    case EV.postgresChanges: {
      const s = readChangeStamp(f.payload);
      if (!s) {
        if (f.payload === null || f.payload === undefined) counters.frames.nullPayload++;
        else counters.frames.noStamp++;
        return false;
      }
      ledger.record(member, s.stream, s.id, s.sentAtMs, recvMs, 0, member.subscribedAtMs);
      if (s.commitMs !== null) recordMs(counters.commitHist, recvMs - s.commitMs);
      return false;
    }
    case EV.system: {
      const p = f.payload as { extension?: string; status?: string } | null;
      const confirms = p?.extension === EV.postgresChanges && p.status === 'ok';
      if (!confirms || member.subscribedAtMs !== 0) return false;
      member.subscribedAtMs = recvMs;
      counters.subscribed++;
      return true;
    }
  }
  // Replies, phx_close and phx_error never come here (client/channel-frames).
  counters.frames.unknownEvent++;
  return false;
}

/**
 * A broadcast with nothing in it: its payload null (or absent), or Supabase's broadcast envelope
 * (`{type: "broadcast", event, payload}`, docs/PROTOCOL.md §4.2) whose payload is.
 */
/** A sweep's recovery probe broadcast (its user event is PROBE_EVENT). */
function isProbeBroadcast(payload: unknown): boolean {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    (payload as { event?: unknown }).event === PROBE_EVENT
  );
}

export function isNullBroadcast(payload: unknown): boolean {
  if (payload === null || payload === undefined) return true;
  if (typeof payload !== 'object') return false;
  const p = payload as { type?: unknown; payload?: unknown };
  return p.type === EV.broadcast && (p.payload === null || p.payload === undefined);
}
