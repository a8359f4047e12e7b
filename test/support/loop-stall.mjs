/**
 * Loaded into every generator process of a test (RTCAP_WORKER_EXEC_ARGV="--import <this file>"):
 * once the process says it is ready (its first message to the coordinator), holds its event loop
 * 3 s at a time, as a process starved of CPU on a loaded machine is held. The 1 s interval is due
 * again when its 3 s wait ends (Node reschedules an interval from the start of its callback), so
 * the holds come back to back with one turn of the loop between them (measured: waits start
 * 3,000–3,001 ms apart, 0–1 ms free), and the process's 1 s timers fire about 3 s apart. It starts
 * at the first message, not at once: a process held while it loads its modules took over a
 * minute to start, and what is under test is a running process's heartbeats. Test use only.
 *
 * The thread sleeps in Atomics.wait rather than spinning: the event loop is held just as long
 * (no timer, socket or message is handled meanwhile), without eight spinning processes taking
 * both cores of the machine from the server under test and from the test file beside it.
 */
// RTCAP_TEST_STALL_MS sets another length (test/integration/late-heartbeat.test.ts: longer than
// the server's idle timeout).
const STALL_MS = Number(process.env.RTCAP_TEST_STALL_MS) || 3_000;
const cell = new Int32Array(new SharedArrayBuffer(4));

function startStalling() {
  setInterval(() => {
    // Nothing ever notifies the cell: the wait always runs its full time.
    Atomics.wait(cell, 0, 0, STALL_MS);
  }, 1_000).unref();
}

// Wrapped rather than listened to: a 'message' listener of its own would start reading the
// channel before the process's own listener is there, and the coordinator's first message
// would be lost.
const send = process.send;
if (send) {
  let started = false;
  process.send = function (...args) {
    if (!started) {
      started = true;
      startStalling();
    }
    return send.apply(this, args);
  };
}
