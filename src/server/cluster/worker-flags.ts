/**
 * Which of the primary's Node flags its workers get too: the profilers'. A worker is forked with
 * its own `execArgv` (cluster/primary.ts), not the primary's, which can hold what a worker must
 * not repeat (`--eval` and its script, `--input-type`); so `node --cpu-prof … rtcap serve
 * --workers N` profiled only the primary, which does no socket work. With these passed on,
 * every worker writes its own profile when it exits normally (SIGTERM, or the primary's
 * shutdown on SIGINT: cluster/worker.ts). `--cpu-prof-name` / `--heap-prof-name` are left out:
 * every worker would write the one file; without them each file is named by its process id.
 */

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
