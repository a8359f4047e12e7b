/**
 * How a worker process is started: its entry file (workerEntry) and which of the primary's Node
 * flags it gets too: the profilers'. A worker is forked with its own `execArgv`
 * (cluster/primary.ts), not the primary's, which can hold what a worker must not repeat
 * (`--eval` and its script, `--input-type`); so `node --cpu-prof … rtcap serve --workers N`
 * profiled only the primary, which does no socket work. With these passed on, every worker
 * writes its own profile when it exits normally (SIGTERM, or the primary's shutdown on SIGINT:
 * cluster/worker.ts). `--cpu-prof-name` / `--heap-prof-name` are left out: every worker would
 * write the one file; without them each file is named by its process id.
 */
import { fileURLToPath } from 'node:url';
import { distEntry } from '../../util/paths.js';

/** Flags passed on as they are (`--cpu-prof`) or with their value (`--cpu-prof-dir=D` or `D`). */
const SWITCHES = new Set(['--cpu-prof', '--heap-prof']);
const WITH_VALUE = new Set([
  '--cpu-prof-dir',
  '--cpu-prof-interval',
  '--heap-prof-dir',
  '--heap-prof-interval',
]);

export function profilerFlags(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i];
    const name = a.split('=', 1)[0];
    if (SWITCHES.has(a)) out.push(a);
    else if (WITH_VALUE.has(name) && a.includes('=')) out.push(a);
    else if (WITH_VALUE.has(a) && i + 1 < execArgv.length) out.push(a, execArgv[++i]);
  }
  return out;
}

/** The worker's entry and flags: the primary's profiler flags (above), tsx from src. */
export function workerEntry(): { exec: string; execArgv: string[] } {
  const profilers = profilerFlags(process.execArgv);
  if (fileURLToPath(import.meta.url).endsWith('.js'))
    return { exec: distEntry('server/cluster/worker-main.js'), execArgv: profilers };
  // Running from the TypeScript sources (tests, tsx): the workers need the same loader.
  const ts = fileURLToPath(new URL('./worker-main.ts', import.meta.url));
  return { exec: ts, execArgv: [...profilers, '--import', 'tsx'] };
}
