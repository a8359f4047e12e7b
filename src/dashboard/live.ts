/**
 * `--dashboard [PORT]`: the live page of a run, sweep, campaign or quota check. One entry
 * point for every command: `startLiveDashboard` serves the page and returns the observer to
 * give the runner, the hooks the command calls (each step's result, campaign state, log
 * lines, each finished run), and `close()`. Loaded only when the flag is given.
 */
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import type { RunResult } from '../result/result.js';
import type { RunObserver } from '../run/runner.js';
import type { CampaignState } from '../campaign/state.js';
import { DashboardFeed, type EndView, type LiveCommand, type RunFiles } from './feed.js';
import { SseHub } from './hub.js';
import { filesIn, isRunFileName, serveRunFile } from './run-files.js';
import { sendJson, startDashboardServer, type DashboardApp } from './server.js';

export interface LiveDashboard {
  url: string;
  observer: RunObserver;
  feed: DashboardFeed;
  hub: SseHub;
  /** The result so far, after each step (a sweep's search rides on it). */
  onStep(r: RunResult): void;
  campaign(state: CampaignState): void;
  log(line: string): void;
  /** A run's files are written: the page links to them (a campaign: see entryFiles). */
  runFinished(dir: string, result: RunResult, exitCode: number, opts?: { last: boolean }): void;
  /**
   * A campaign entry's files are written: the page links to them beside the entry (one run in
   * this process, or one finished before a resume).
   */
  entryFiles(index: number, dir: string): void;
  /** Everything is over (a campaign: after its last entry; quotas: with their table). */
  finished(end: {
    status: string;
    exitCode: number;
    abortReason: string | null;
    dir?: string;
    table?: EndView['table'];
  }): void;
  close(): Promise<void>;
}

/** `base`'s subdirectory at the encoded relative path `sub`; null when it is not inside `base`. */
function inside(base: string, sub: string): string | null {
  let rel: string;
  try {
    rel = sub.split('/').map(decodeURIComponent).join(sep);
  } catch {
    return null;
  }
  const dir = resolve(base, rel);
  const up = relative(resolve(base), dir);
  return up === '' || up.startsWith('..') || isAbsolute(up) ? null : dir;
}

/**
 * Run directories the page may read files of, by the key in their links: `filesOf` gives a
 * directory its key (once) and the links to its files.
 */
function linkedDirs(): { dirs: Map<string, string>; filesOf: (dir: string) => RunFiles } {
  const dirs = new Map<string, string>();
  const filesOf = (dir: string): RunFiles => {
    const k =
      [...dirs].find(([, d]) => d === dir)?.[0] ??
      `${dirs.size + 1}-${basename(dir).replace(/[^A-Za-z0-9._-]/g, '_')}`;
    dirs.set(k, dir);
    return {
      dir: basename(dir),
      links: filesIn(dir).map((name) => ({ name, href: `files/${k}/${name}` })),
    };
  };
  return { dirs, filesOf };
}

/** The live page's routes: its events, its state, and the files of the linked directories. */
function liveApp(
  command: LiveCommand,
  hub: SseHub,
  feed: DashboardFeed,
  dirs: Map<string, string>,
): DashboardApp {
  return {
    mode: 'live',
    title: `rtcap ${command} — live`,
    handle(path, _query, req, res) {
      if (path === 'events') {
        hub.add(res, feed.snapshot());
        req.socket.setNoDelay(true);
        return true;
      }
      if (path === 'api/state') {
        sendJson(res, feed.snapshot());
        return true;
      }
      // files/<key>/<file>, or files/<key>/<subdirectory>/<file>: where a campaign report's
      // relative link to an entry's report lands.
      const m = /^files\/([^/]+)\/(?:(.+)\/)?([^/]+)$/.exec(path);
      const base = m ? dirs.get(m[1]) : undefined;
      if (!m || base === undefined || !isRunFileName(m[3])) return false;
      const dir = m[2] === undefined ? base : inside(base, m[2]);
      return dir !== null && serveRunFile(res, dir, m[3]);
    },
  };
}

export async function startLiveDashboard(opts: {
  command: LiveCommand;
  port: number;
  host?: string;
}): Promise<LiveDashboard> {
  const hub = new SseHub();
  const feed = new DashboardFeed(opts.command, (event, data) => hub.send(event, data));
  const { dirs, filesOf } = linkedDirs();
  const server = await startDashboardServer(liveApp(opts.command, hub, feed, dirs), {
    port: opts.port,
    host: opts.host,
    flag: '--dashboard',
  });
  return {
    url: server.url,
    observer: feed,
    feed,
    hub,
    onStep: (r) => feed.result(r),
    campaign: (state) => feed.campaign(state),
    log: (line) => feed.log(line),
    runFinished(dir, result, exitCode, o) {
      // A sweep's record as the search left it: its stop reason and final knee.
      feed.result(result);
      if (o?.last !== false && opts.command !== 'campaign')
        feed.finish({
          status: result.status,
          exit_code: exitCode,
          abort_reason: result.abort_reason,
          files: filesOf(dir),
          table: null,
        });
    },
    entryFiles: (index, dir) => feed.entryDone(index, filesOf(dir)),
    finished({ status, exitCode, abortReason, dir, table }) {
      feed.finish({
        status,
        exit_code: exitCode,
        abort_reason: abortReason,
        files: dir ? filesOf(dir) : null,
        table: table ?? null,
      });
    },
    close: async () => {
      hub.close();
      await server.close();
    },
  };
}
