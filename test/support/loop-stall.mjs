/**
 * Loaded into every generator process of a test (RTCAP_WORKER_EXEC_ARGV="--import <this file>"):
 * holds the process's event loop 3 s at a time, once a second, as a process starved of CPU on
 * a loaded machine is held. Its 1 s timers then fire about 3 s apart. Test use only.
 *
 * The thread sleeps in Atomics.wait rather than spinning: the event loop is held just as long
 * (no timer, socket or message is handled meanwhile), without eight spinning processes taking
 * both cores of the machine from the server under test and from the test file beside it.
 */
const STALL_MS = 3_000;
const cell = new Int32Array(new SharedArrayBuffer(4));

setInterval(() => {
  // Nothing ever notifies the cell: the wait always runs its full time.
  Atomics.wait(cell, 0, 0, STALL_MS);
}, 1_000).unref();
