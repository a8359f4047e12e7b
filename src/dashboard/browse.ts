/**
 * `rtcap dashboard [DIR]`: the dashboard's page over the runs, sweeps and campaigns a folder
 * holds (browse-index), each run's files (run-files), and any two runs compared side by side
 * — the same view `rtcap compare A B --out x.html` writes. Reads what is on disk; writes nothing.
 */
import { readResultFile } from '../run/output.js';
import { renderComparisonHtml } from '../report/compare-html.js';
import { redactText } from '../redact/redact.js';
import { indexFolder } from './browse-index.js';
import { isRunFileName, serveRunFile } from './run-files.js';
import {
  send,
  sendJson,
  startDashboardServer,
  type DashboardApp,
  type DashboardServer,
} from './server.js';

/** A run's id from its address (fileLink); null when the address is not well encoded. */
function decodedId(encoded: string): string | null {
  try {
    return encoded.split('/').map(decodeURIComponent).join('/');
  } catch {
    return null;
  }
}

export function browseApp(root: string): DashboardApp {
  return {
    mode: 'browse',
    title: `rtcap — runs in ${root}`,
    handle(path, query, _req, res) {
      if (path === 'api/runs') {
        sendJson(res, JSON.parse(redactText(JSON.stringify(indexFolder(root).index))));
        return true;
      }
      if (path === 'compare') {
        const { sources } = indexFolder(root);
        const runOf = (key: string) => {
          const id = query.get(key);
          return id ? sources.get(id) : undefined;
        };
        const a = runOf('a');
        const b = runOf('b');
        if (a === undefined || b === undefined) return false;
        const ra = readResultFile(a);
        const rb = readResultFile(b);
        if (typeof ra === 'string' || typeof rb === 'string') {
          send(res, 422, {
            type: 'text/plain; charset=utf-8',
            body: `${typeof ra === 'string' ? ra : rb}\n`,
          });
          return true;
        }
        send(res, 200, {
          type: 'text/html; charset=utf-8',
          body: redactText(renderComparisonHtml(ra, rb)),
        });
        return true;
      }
      // runs/<id>/<file>, the id being the run's path under the folder (fileLink); runs/<file>:
      // the folder's own (a campaign's).
      const m = /^runs\/(?:(.+)\/)?([^/]+)$/.exec(path);
      if (!m || !isRunFileName(m[2])) return false;
      const id = m[1] === undefined ? '' : decodedId(m[1]);
      const source = id === null ? undefined : indexFolder(root).sources.get(id);
      return source !== undefined && serveRunFile(res, source, m[2]);
    },
  };
}

export function serveBrowse(
  root: string,
  opts: { port: number; host?: string },
): Promise<DashboardServer> {
  return startDashboardServer(browseApp(root), { ...opts, flag: '--port' });
}
