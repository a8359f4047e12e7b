/**
 * Ctrl-C for the commands that run benchmarks: the first signal stops the run gracefully, the
 * second quits at once, and the exit code names the signal received.
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

/**
 * First SIGINT/SIGTERM aborts the signal (the run stops what it started and writes what it
 * has); the second exits at once (the process 'exit' hooks still stop the built-in server and
 * remove its files). `exitCode` turns an interrupted run's code into the received signal's.
 */
export function interruptible(): {
  signal: AbortSignal;
  dispose: () => void;
  exitCode: (code: number) => number;
} {
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
