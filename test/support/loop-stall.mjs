/**
 * Loaded into every generator process of a test (RTCAP_WORKER_EXEC_ARGV="--import <this file>"):
 * holds the process's event loop 3 s at a time, once a second, as a process starved of CPU on
 * a loaded machine is held. Its 1 s timers then fire about 3 s apart. Test use only.
 */
const STALL_MS = 3_000;

setInterval(() => {
  const end = Date.now() + STALL_MS;
  while (Date.now() < end) {
    // Busy on purpose: the event loop gets nothing done meanwhile.
  }
}, 1_000).unref();
