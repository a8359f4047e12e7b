/**
 * The stdin/stdout control of a bench child process (bench/server-heartbeat.ts's server and
 * client): each line on stdin is a command, each answer one JSON line on stdout.
 *
 * - `stat`: this process's process.cpuUsage() (µs, user and system), plus what `extra` adds;
 * - `profile-start` / `profile-stop FILE`: the V8 CPU profiler (node:inspector) over exactly
 *   the window between the two, written as a .cpuprofile (the format `node --cpu-prof` writes);
 * - `exit`: `onExit`, then a normal exit;
 * - any other command: `commands[cmd]`, if there is one.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { createInterface } from 'node:readline';

/** Profiler sampling interval: 250 µs gives ~40,000 samples in a 10 s window. */
const SAMPLE_INTERVAL_US = 250;

export function say(o: object): void {
  process.stdout.write(`${JSON.stringify(o)}\n`);
}

export function childControl(
  stat: () => object,
  onExit: () => Promise<void>,
  commands: Record<string, () => void> = {},
): void {
  const session = new Session();
  session.connect();
  const post = (method: string, params: object = {}) =>
    new Promise<unknown>((done, fail) =>
      session.post(method, params, (err, res) => (err ? fail(err) : done(res))),
    );
  const fail = (e: Error) => say({ error: e.message });
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [cmd, arg] = line.split(' ', 2);
    if (cmd === 'stat') say({ cpu: process.cpuUsage(), ...stat() });
    else if (cmd === 'profile-start')
      post('Profiler.enable')
        .then(() => post('Profiler.setSamplingInterval', { interval: SAMPLE_INTERVAL_US }))
        .then(() => post('Profiler.start'))
        .then(() => say({ profiling: true }), fail);
    else if (cmd === 'profile-stop')
      post('Profiler.stop')
        .then((r) => {
          writeFileSync(arg, JSON.stringify((r as { profile: unknown }).profile));
          say({ profile: arg });
        })
        .catch(fail);
    else if (cmd === 'exit') void onExit().finally(() => process.exit(0));
    else commands[cmd]?.();
  });
}
