/**
 * Preloaded into every rtcap process of a soak (NODE_OPTIONS="--import …/mem-probe.mjs", which
 * the coordinator's forked generator processes inherit): every RTCAP_MEM_PROBE_MS it appends
 * one JSON line {pid, ppid, t, rss, heap_used, heap_total, external, array_buffers} (bytes,
 * wall-clock ms) to $RTCAP_MEM_PROBE_DIR/<pid>.ndjson. Plain JavaScript so it loads without a
 * TypeScript loader; unref'd so it never keeps a process alive. Used by bench/soak.ts only.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.RTCAP_MEM_PROBE_DIR;
if (dir) {
  const file = join(dir, `${process.pid}.ndjson`);
  const everyMs = Number(process.env.RTCAP_MEM_PROBE_MS ?? 5000);
  const write = () => {
    const m = process.memoryUsage();
    appendFileSync(
      file,
      JSON.stringify({
        pid: process.pid,
        ppid: process.ppid,
        argv1: process.argv[1] ?? '',
        t: Date.now(),
        rss: m.rss,
        heap_used: m.heapUsed,
        heap_total: m.heapTotal,
        external: m.external,
        array_buffers: m.arrayBuffers,
      }) + '\n',
    );
  };
  setInterval(write, everyMs).unref();
  write();
}
