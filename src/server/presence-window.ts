/**
 * A channel's client presence window (`limit_client_presence_event`, docs/PROTOCOL.md §5.1): at
 * most `max` presence calls per window of `windowMs`, a window starting with the first call after
 * the last one ended.
 */
export class PresenceWindow {
  private count = 0;
  private resetAtMs = 0;

  /** Counts a call at `nowMs`; false when this window already holds `max`. */
  take(nowMs: number, max: number, windowMs: number): boolean {
    if (this.resetAtMs === 0 || nowMs > this.resetAtMs) {
      this.count = 1;
      this.resetAtMs = nowMs + windowMs;
      return true;
    }
    if (this.count >= max) return false;
    this.count++;
    return true;
  }
}
