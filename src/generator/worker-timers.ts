/**
 * The clocks of one generator process: its per-second line, aligned to wall-clock seconds so
 * every process's lines line up; heartbeats, each connection once every heartbeat_interval,
 * spread evenly over it; and the maintenance of timeouts and token renewals.
 */
import { nowMs } from '../measure/clock.js';
import { nextSecondDelayMs } from './second-report.js';

/** How often joins, subscriptions, acks and tracks meet their timeouts and tokens are renewed. */
export const MAINTENANCE_EVERY_MS = 250;

export interface WorkerClockHooks {
  /** The process is stopping: no further per-second line. */
  stopped(): boolean;
  /** A wall-clock second ended. */
  reportSecond(): void;
  /** Heartbeat the connections of this slot, one of `slots` (one a second). */
  heartbeat(slot: number, slots: number): void;
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
  const tick = () => {
    if (hooks.stopped()) return;
    hooks.reportSecond();
    timers[0] = setTimeout(tick, nextSecondDelayMs(Date.now()));
  };
  timers[0] = setTimeout(tick, nextSecondDelayMs(Date.now()));
  const slots = Math.max(1, Math.round(heartbeatIntervalMs / 1000));
  let slot = 0;
  timers[1] = setInterval(() => {
    slot = (slot + 1) % slots;
    hooks.heartbeat(slot, slots);
  }, 1000);
  timers[2] = setInterval(() => hooks.maintain(nowMs()), MAINTENANCE_EVERY_MS);
  return timers;
}
