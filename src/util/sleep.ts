/**
 * Waits `ms` (negative counts as 0). Always through a timer, so even a 0 ms sleep yields to
 * the event loop: a loop that sleeps until a time already past still lets I/O run.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
