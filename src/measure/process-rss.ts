/**
 * This process's resident memory, sampled without ever throwing. Node reads it from
 * /proc/self/stat, which takes a file descriptor: a generator process that has used every one
 * of its open-file limit on sockets gets EMFILE from `process.memoryUsage.rss()`, and an
 * uncaught throw there would end the process in the middle of the step it is measuring. The
 * sample is then the last one read (NaN before any), and the sockets that could not open are
 * counted where they failed.
 */
let lastMb = NaN;

/** Resident memory in MiB, or the last value read when it cannot be read now. */
export function rssMb(read: () => number = () => process.memoryUsage.rss()): number {
  try {
    lastMb = read() / 1048576;
  } catch {
    // EMFILE/ENFILE reading /proc/self/stat: keep the last sample.
  }
  return lastMb;
}
