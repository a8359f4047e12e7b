/**
 * A failure at a chosen start-up stage of a run, for the test that every abort path ends the
 * process with its children reaped and its temporary files removed: with
 * RTCAP_TEST_FAIL_AT=<stage> set (tests only), `testFault(stage)` throws there as a real failure
 * of that stage would. Unset (always, outside that test): it does nothing. Read here only.
 */

/** The stages, in the order a run reaches them. */
export const FAULT_STAGES = [
  // the built-in server is spawned and about to be pinned (`--server-cpus`)
  'server-pin',
  // the built-in server answered; tokens and the server's basis are next
  'target',
  // the generator is planned (and pinned, `--generator-cpus`)
  'generator',
  // the samplers run; the generator processes are next
  'samplers',
  // the generator processes run; the first step is next
  'pool',
] as const;

export type FaultStage = (typeof FAULT_STAGES)[number];

export function testFault(stage: FaultStage): void {
  if (process.env.RTCAP_TEST_FAIL_AT !== stage) return;
  throw new Error(`test fault at start-up stage ${stage} (RTCAP_TEST_FAIL_AT)`);
}
