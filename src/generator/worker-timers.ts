/**
 * The clocks of one generator process: its per-second line, aligned to wall-clock seconds so
 * every process's lines line up; heartbeats, each connection once every heartbeat_interval,
 * spread evenly over it; and the maintenance of timeouts and token renewals.
 *
 * Heartbeat slots follow the clock, not the count of timer ticks: a process whose event loop lags
 * (a ramp past what the machine gives it) gets its 1 s ticks seconds apart, and one slot a tick
 * would stretch every connection's heartbeat period by as much (2.4 s ticks make a 25 s interval
 * 60 s, and the server closes the socket as idle). A late tick sends the slots of every second
 * that passed, at most one round. A connection whose last heartbeat was answered is heartbeaten
 * in the tick itself; one still awaiting its reply only after the loop has read its sockets
 * (setImmediate), so a reply that arrived while the loop lagged is not taken for a missing one.
 * Deferring them all was not enough: a loop held again before that read (a held process's timers
 * come due together) held every heartbeat with it, and 3 s holds back to back made gaps of 6.7 s,
 * past a 5 s idle timeout, so the server closed every socket.
 */
import { nowMs } from '../measure/clock.js';
import { nextSecondDelayMs } from './second-report.js';

/** How often joins, subscriptions, acks and tracks meet their timeouts and tokens are renewed. */
export const MAINTENANCE_EVERY_MS = 250;

export interface WorkerClockHooks {
  /** The process is stopping: no further per-second line. */
  stopped(): boolean;
  /** A wall-clock second ended; the tick that says so came `lateMs` after it was due. */
  reportSecond(lateMs: number): void;
  /**
   * Heartbeat the connections of this slot, one of `slots` (one a second); returns what must
   * wait until the loop has read its sockets, or null.
   */
  heartbeat(slot: number, slots: number): (() => void) | null | void;
  /** Timeouts and renewals due at `now` (ms). */
  maintain(now: number): void;
}

/**
 * Starts the process's timers; clearing every timer of the returned array (it stays the one
 * whose first timer the per-second line replaces each second) stops them all.
 */
export function startWorkerTimers(
  heartbeatIntervalMs: number,
  hooks: WorkerClockHooks,
): NodeJS.Timeout[] {
  const timers: NodeJS.Timeout[] = [];
  let dueMs = 0;
  const schedule = () => {
    const now = Date.now();
    const delay = nextSecondDelayMs(now);
    dueMs = now + delay;
    timers[0] = setTimeout(tick, delay);
  };
  const tick = () => {
    if (hooks.stopped()) return;
    hooks.reportSecond(Math.max(0, Date.now() - dueMs));
    schedule();
  };
  schedule();
  const slots = Math.max(1, Math.round(heartbeatIntervalMs / 1000));
  let slot = 0;
  let slotMs = Date.now();
  timers[1] = setInterval(() => {
    const due = heartbeatSlotsDue(Date.now() - slotMs, slots);
    slotMs = due.restart ? Date.now() : slotMs + due.count * 1000;
    const afterRead: Array<() => void> = [];
    for (let n = 0; n < due.count && !hooks.stopped(); n++) {
      slot = (slot + 1) % slots;
      const later = hooks.heartbeat(slot, slots);
      if (later) afterRead.push(later);
    }
    if (afterRead.length === 0) return;
    setImmediate(() => {
      if (hooks.stopped()) return;
      for (const later of afterRead) later();
    });
  }, 1000);
  timers[2] = setInterval(() => hooks.maintain(nowMs()), MAINTENANCE_EVERY_MS);
  return timers;
}

/**
 * How many heartbeat slots (one a second) are due `elapsedMs` after the last one: the seconds
 * elapsed, rounded (a tick a little early or late counts one), at least one, at most a round of
 * `slots` (then `restart`: the count starts again from now instead of owing the rest).
 */
export function heartbeatSlotsDue(
  elapsedMs: number,
  slots: number,
): { count: number; restart: boolean } {
  const seconds = Math.max(1, Math.round(elapsedMs / 1000));
  return seconds >= slots ? { count: slots, restart: true } : { count: seconds, restart: false };
}
