/**
 * The built-in server's process group as the run holds it: its log (redacted line by line on
 * its way to the run directory, with the last stderr lines kept to name a failure), its ready
 * message, its signals, and the reaping of whatever of it is left (its Postgres too) with its
 * private directory — however the run ends, a hard exit of the run included.
 */
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { errorLine, redactText } from '../redact/redact.js';
import { raceTimer } from './abort.js';
import { sleep } from '../util/sleep.js';

/** The `rtcap serve --ready-json` line. */
export interface ReadyMessage {
  port: number;
  url: string;
  workers?: number;
  database?: string | null;
}

/** Thrown when the start was cancelled by `signal`; everything started is stopped by then. */
export class StartCancelled extends Error {
  constructor() {
    super('cancelled while the built-in server was starting');
  }
}

/** Stderr lines kept: enough to hold an uncaught error's first line above its stack. */
const TAIL_LINES = 200;

export class ServerProcess {
  /** The last non-blank stderr lines, redacted. */
  readonly tail: string[] = [];
  /** Set once the run stops (or cancels) the server: its exit is then no failure. */
  stopping = false;
  private readonly log: WriteStream;
  private logEnded = false;
  private readonly childGone: Promise<void>;
  private readonly onProcessExit = () => {
    this.signalGroup('SIGKILL');
    this.removePrivateDir();
  };

  constructor(
    readonly child: ChildProcess,
    logPath: string,
    private readonly removePrivateDir: () => void,
  ) {
    this.log = createWriteStream(logPath, { flags: 'a' });
    // A hard exit of the run (a second Ctrl-C, process.exit anywhere) still takes the server, its
    // Postgres and their files with it: only synchronous work is possible there.
    process.on('exit', this.onProcessExit);
    this.childGone = new Promise<void>((r) => child.once('exit', () => r()));
    // A log that cannot be written (a full disk) is given up, never an uncaught error: the run
    // directory's own writes report the disk and abort the run.
    this.log.on('error', () => (this.logEnded = true));
    createInterface({ input: child.stderr! }).on('line', (raw) => {
      const line = redactText(raw);
      this.writeLog(line);
      if (line.trim()) this.tail.push(line);
      if (this.tail.length > TAIL_LINES) this.tail.splice(0, this.tail.length - TAIL_LINES);
    });
  }

  running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  signalGroup(sig: NodeJS.Signals): void {
    try {
      if (this.child.pid) process.kill(-this.child.pid, sig);
    } catch {
      /* group already gone */
    }
  }

  /**
   * Kills whatever of the server is left (its Postgres too), then removes the private directory.
   */
  async reap(graceMs: number): Promise<void> {
    await raceTimer(this.childGone, graceMs, undefined);
    // Postgres gets a moment for its own fast shutdown (it got the group's SIGINT or its server's
    // stop).
    await this.groupGone(this.running() ? 0 : 2_000);
    this.signalGroup('SIGKILL');
    await this.groupGone(2_000);
    this.removePrivateDir();
    process.off('exit', this.onProcessExit);
    if (!this.logEnded) this.log.end();
    this.logEnded = true;
  }

  /** Resolves with why the server ended if it exits before the run stops it (never rejects). */
  exited(): Promise<string> {
    return new Promise<string>((resolve) => {
      this.child.on('exit', (code, signal) => {
        if (this.stopping) return;
        // What it left behind (its Postgres) goes with it.
        void this.reap(0);
        // A crash says why on its last stderr line; a signal is the whole story.
        const last = code !== 0 && !signal && this.tail.length ? `: ${causeOf(this.tail)}` : '';
        resolve(`built-in server exited (${signal ?? `code ${code}`})${last}`);
      });
    });
  }

  /**
   * The server's ready message; rejects when it exits first (naming the cause from its stderr),
   * cannot be spawned, or is not ready within `timeoutMs`.
   */
  ready(args: { timeoutMs: number; logPath: string; signal?: AbortSignal }): Promise<ReadyMessage> {
    const { child } = this;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stopping = true;
        this.signalGroup('SIGINT');
        reject(
          new Error(
            `built-in server did not become ready within ${args.timeoutMs / 1000} s (log: ${args.logPath})`,
          ),
        );
      }, args.timeoutMs);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        this.writeLog(redactText(line));
        try {
          const m = JSON.parse(line) as { event?: string } & ReadyMessage;
          if (m.event === 'ready') {
            clearTimeout(timer);
            resolve(m);
          }
        } catch {
          /* ordinary log line */
        }
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (args.signal?.aborted) return reject(new StartCancelled());
        // The stderr lines may still be arriving: give them a moment, then name the cause in one
        // line.
        setTimeout(
          () =>
            reject(
              new Error(
                `built-in server could not start (${signal ?? `code ${code}`}): ${causeOf(this.tail)} (log: ${args.logPath})`,
              ),
            ),
          100,
        );
      });
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`built-in server could not be spawned: ${errorLine(e)}`));
      });
    });
  }

  private writeLog(line: string): void {
    if (!this.logEnded) this.log.write(line + '\n');
  }

  private groupAlive(): boolean {
    try {
      if (this.child.pid) process.kill(-this.child.pid, 0);
      return Boolean(this.child.pid);
    } catch {
      return false;
    }
  }

  /** Waits up to `ms` for every process of the group to be gone. */
  private async groupGone(ms: number): Promise<void> {
    for (let waited = 0; waited < ms && this.groupAlive(); waited += 50) await sleep(50);
  }
}

/**
 * One line naming why the server did not start, from its last stderr lines: the first line
 * that reads as a cause (an Error message, a "rtcap serve:" line), not the tail of a stack trace.
 */
export function causeOf(tail: readonly string[]): string {
  const lines = tail.map((l) => l.trim()).filter(Boolean);
  const serve = lines.filter((l) => l.startsWith('rtcap serve:')).pop();
  if (serve) return serve.replace(/^rtcap serve:\s*/, '');
  // An uncaught error prints its message first, then the stack and its fields.
  const error = lines.find((l) => /^\w*Error\b[^:]*: /.test(l));
  if (error) return error;
  const notStack = lines.filter((l) => !/^at\s|^Node\.js v|^[\]}|)]|^\^+$|^\{$/.test(l)).pop();
  return notStack ?? 'no output';
}
