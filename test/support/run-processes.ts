/**
 * The processes of one run started with its own TMPDIR: every process whose environment names
 * that directory (the coordinator, its generator processes, the built-in server, its Postgres),
 * so a test can tell that none is left once the run has exited.
 */
import { readdirSync, readFileSync } from 'node:fs';

export function processesWithTmpdir(tmp: string): number[] {
  const needle = `TMPDIR=${tmp}\0`;
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(needle)) pids.push(Number(name));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}
