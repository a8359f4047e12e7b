/**
 * This test process's generator children (generator/worker-main, forked by a run's WorkerPool),
 * by pid: for tests that stop or kill one as a machine or an operator might.
 */
import { readFileSync } from 'node:fs';

export function generatorPids(): number[] {
  const out: number[] = [];
  const raw = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
  for (const pid of raw.trim().split(/\s+/).filter(Boolean).map(Number)) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('worker-main.js')) out.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return out.sort((a, b) => a - b);
}
