/**
 * A refused fork, for the test of a generator that cannot start all its processes: with
 * RTCAP_TEST_SPAWN_FAIL_AT=N set (tests only), the pool's Nth process (counted from 1) fails to
 * start with the error Node gives when the system refuses a fork (EAGAIN: the process limit or
 * memory), so the failure path can be tested where a real EAGAIN cannot be produced (root is not
 * held to RLIMIT_NPROC). Unset (always, outside that test): null.
 */
export function testSpawnFault(n: number, file: string): NodeJS.ErrnoException | null {
  if (Number(process.env.RTCAP_TEST_SPAWN_FAIL_AT ?? 0) !== n) return null;
  // The shape of Node's own: `spawn FILE EAGAIN`, code, errno and syscall (child_process onexit).
  return Object.assign(new Error(`spawn ${file} EAGAIN`), {
    code: 'EAGAIN',
    errno: -11,
    syscall: `spawn ${file}`,
    path: file,
  });
}
