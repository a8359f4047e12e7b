/**
 * A cost put on every send of a generator process, for the known-answer test of a generator
 * that cannot keep up: with RTCAP_TEST_SEND_COST_MS set (tests only), each scheduled send first
 * holds the process's CPU that many milliseconds, so a process asked for more than 1000 ÷ cost
 * sends a second falls behind its schedule on any machine, however fast. Unset (always, outside
 * that test): nothing, one comparison per send.
 */
const COST_MS = Number(process.env.RTCAP_TEST_SEND_COST_MS ?? 0) || 0;

export function testSendCost(): void {
  if (COST_MS <= 0) return;
  const end = performance.now() + COST_MS;
  while (performance.now() < end) {
    // Busy on purpose: the cost is CPU the event loop cannot use.
  }
}
