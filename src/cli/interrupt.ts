/**
 * Ctrl-C for the commands that run benchmarks: the first signal stops the run gracefully, the
 * second quits at once, and the exit code names the signal received. The handlers are installed
 * at the process's start (bin/rtcap.js calls holdSignals), before the command's modules and the
 * profile load, so that a signal during start-up is held for the run — which then writes what it
 * has (nothing measured) — instead of ending the process silently with nothing on disk.
 */
import { EXIT } from '../util/exit-codes.js';

/**
 * The shell's convention for a process ended by a signal: 128 + its number (SIGINT 130, SIGTERM
 * 143).
 */
const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = {
  SIGINT: EXIT.interrupted,
  SIGTERM: EXIT.terminated,
};

/** The commands whose Ctrl-C stops a run gracefully (they call interruptible()). */
const BENCHMARK_COMMANDS = new Set(['run', 'sweep', 'campaign', 'quotas']);

interface Interrupts {
  signal: AbortSignal;
  dispose: () => void;
  exitCode: (code: number) => number;
}

/** The handlers installed by holdSignals, not yet taken by the command's interruptible(). */
let held: Interrupts | null = null;

/**
 * Installs the handlers now when `argv` names a benchmark command (other commands keep the
 * default Ctrl-C, or their own); its interruptible() then takes them, with a signal received in
 * between already aborting its AbortSignal.
 */
export function holdSignals(argv: readonly string[]): void {
  if (held === null && BENCHMARK_COMMANDS.has(argv[0] ?? '')) held = install();
}

/**
 * First SIGINT/SIGTERM aborts the signal (the run stops what it started and writes what it
 * has); the second exits at once (the process 'exit' hooks still stop the built-in server and
 * remove its files). `exitCode` turns an interrupted run's code into the received signal's.
 */
export function interruptible(): Interrupts {
  const taken = held ?? install();
  held = null;
  return taken;
}

function install(): Interrupts {
  const ac = new AbortController();
  let received: keyof typeof SIGNAL_EXIT | null = null;
  const onSignal = (sig: keyof typeof SIGNAL_EXIT) => {
    if (received === null) {
      received = sig;
      process.stderr.write(
        '\nrtcap: stopping — writing what was measured (Ctrl-C again to quit at once)\n',
      );
      // The signal's name is the abort's reason: a step it cuts short says what cut it.
      ac.abort(sig);
    } else {
      process.exit(SIGNAL_EXIT[sig]);
    }
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
    exitCode: (code) => (code === EXIT.interrupted && received ? SIGNAL_EXIT[received] : code),
  };
}
