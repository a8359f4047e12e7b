/**
 * A server's close that came while the connection owed the server a heartbeat. A server closes a
 * connection it has not heard from for its idle timeout (Phoenix's transport: 60 s; rtcap serve's
 * too), and a generator process whose event loop is held sends its heartbeats late: the close is
 * then the generator's doing, not the server refusing anything. Named so, it is counted as a
 * generator-side error (the step reads generator-bound, docs/VERDICTS.md) and is never quoted as
 * the server's rejection.
 */
import type { ClassifiedError } from '../client/classify.js';

/** A gap between heartbeats past this many intervals is late (25 s → 37.5 s). */
export const LATE_HEARTBEAT_FACTOR = 1.5;

/** What a late-heartbeat close's reason starts with. */
export const LATE_HEARTBEAT = 'heartbeat late';

/**
 * `e` named as the generator's when it is a server's close and the connection's longest recent
 * gap between heartbeats (`gapMs`, generator/connection's heartbeatGapMs) passed
 * LATE_HEARTBEAT_FACTOR × `intervalMs`; otherwise `e` as it is.
 */
export function nameLateHeartbeatClose(
  e: ClassifiedError,
  gapMs: number,
  intervalMs: number,
): ClassifiedError {
  if (e.class !== 'server' || !e.reason.startsWith('closed by server: ')) return e;
  if (!(gapMs > intervalMs * LATE_HEARTBEAT_FACTOR)) return e;
  // One reason for every such close of a run (the errors are counted by reason): the interval,
  // not each connection's own gap.
  const due = `${+(intervalMs / 1000).toFixed(3)} s`;
  return {
    class: 'generator',
    reason: `${LATE_HEARTBEAT} (due every ${due}; this generator's event loop held it): ${e.reason}`,
  };
}
