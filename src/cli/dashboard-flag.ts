/**
 * `--dashboard [PORT]` on run, sweep, campaign and quotas: its options, and the live dashboard
 * started when it is given. The dashboard's code is imported only then, so a run without the
 * flag loads none of it.
 */
import type { Argv } from 'yargs';
import type { LiveDashboard } from '../dashboard/live.js';
import type { LiveCommand } from '../dashboard/feed.js';
import type { RunObserver } from '../run/runner.js';
import { EXIT } from '../util/exit-codes.js';
import { redactText } from '../redact/redact.js';
import { checked, int, UsageError } from './flags.js';

/** The most seconds --dashboard-linger keeps a finished page up: a day. */
const MAX_LINGER_S = 86_400;

/**
 * `--dashboard`'s value checked while the flags are parsed, before anything starts: nothing (any
 * free port) or a port. Kept as given; dashboardPort reads it when the page starts.
 */
function dashboardValue(raw: unknown): string {
  if (Array.isArray(raw))
    throw new UsageError(`--dashboard given ${raw.length} times: give it once`);
  const text = raw === undefined || raw === null || raw === true ? '' : String(raw);
  const port = dashboardPort(text);
  if (typeof port === 'string') throw new UsageError(port);
  return text;
}

export function dashboardOptions<T>(c: Argv<T>) {
  return c
    .option('dashboard', {
      type: 'string',
      coerce: dashboardValue,
      describe:
        'serve a live page of the run at http://127.0.0.1:PORT/ (no PORT or 0: any free port; the address is printed)',
    })
    .option('dashboard-host', {
      type: 'string',
      default: '127.0.0.1',
      describe:
        "address --dashboard listens on; any other than loopback puts a random token in the page's address",
    })
    .option(
      'dashboard-linger',
      checked('dashboard-linger', int(0, MAX_LINGER_S), {
        describe:
          'seconds the finished page (with its links to the report) stays served after the run; Ctrl-C ends it sooner',
      }),
    );
}

export interface DashboardArgs {
  dashboard?: string;
  'dashboard-host'?: string;
  'dashboard-linger'?: number;
}

/** The port --dashboard asks for, or why it is not one. */
export function dashboardPort(value: string): number | string {
  if (value === '') return 0;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    return `--dashboard ${value}: must be a port number (0-65535), or nothing for any free port`;
  return port;
}

/**
 * The live dashboard when --dashboard is given (undefined when not); null after printing why
 * it cannot start (exit 2).
 */
export async function dashboardOrExit(
  args: DashboardArgs,
  command: LiveCommand,
): Promise<LiveDashboard | undefined | null> {
  if (args.dashboard === undefined) return undefined;
  const refuse = (why: string) => {
    process.stderr.write(`${why}\n`);
    process.exitCode = EXIT.usage;
    return null;
  };
  const port = dashboardPort(args.dashboard);
  if (typeof port === 'string') return refuse(port);
  try {
    const { startLiveDashboard } = await import('../dashboard/live.js');
    const dash = await startLiveDashboard({ command, port, host: args['dashboard-host'] });
    process.stderr.write(`dashboard: ${dash.url}\n`);
    return dash;
  } catch (e) {
    return refuse((e as Error).message);
  }
}

/**
 * Several observers as one (live metrics and the dashboard); a throwing one never stops the run.
 */
export function observeAll(list: ReadonlyArray<RunObserver | undefined>): RunObserver | undefined {
  const all = list.filter((o): o is RunObserver => o !== undefined);
  if (all.length <= 1) return all[0];
  const each = (f: (o: RunObserver) => void) => {
    for (const o of all) {
      try {
        f(o);
      } catch {
        /* a view of the run must not end it */
      }
    }
  };
  return {
    start: (r) => each((o) => o.start?.(r)),
    second: (rec, target, clock, limits) => each((o) => o.second(rec, target, clock, limits)),
    step: (s) => each((o) => o.step(s)),
  };
}

/**
 * What the run context gains from the dashboard: its observer beside the others, each step's
 * result, the log lines.
 */
export function withDashboard<
  C extends { log: (line: string) => void; observer?: RunObserver; onStep?: (r: never) => void },
>(ctx: C, dash: LiveDashboard | undefined): C {
  if (!dash) return ctx;
  const log = ctx.log;
  return {
    ...ctx,
    observer: observeAll([ctx.observer, dash.observer]),
    onStep: dash.onStep,
    log: (line: string) => {
      log(line);
      dash.log(redactText(line));
    },
  };
}

/**
 * After the command: the page says so, stays up `--dashboard-linger` seconds (Ctrl-C ends it), then
 * closes.
 */
export async function closeDashboard(
  dash: LiveDashboard | undefined | null,
  args: DashboardArgs,
  signal?: AbortSignal,
): Promise<void> {
  if (!dash) return;
  const lingerS = args['dashboard-linger'] ?? 0;
  if (lingerS > 0 && !signal?.aborted) {
    process.stderr.write(
      `dashboard: the finished page stays at ${dash.url} for ${lingerS} s (Ctrl-C to leave)\n`,
    );
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, lingerS * 1000);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });
  }
  await dash.close();
}
