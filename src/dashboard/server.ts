/**
 * The dashboard's HTTP server, shared by the live page (`--dashboard`) and the browser of
 * finished runs (`rtcap dashboard DIR`). It serves the page, its script and echarts' own
 * dist file from node_modules (nothing is fetched from anywhere else: the page's Content
 * Security Policy allows its own origin only), and hands every other path to the app.
 *
 * Loopback by default. Bound to another address, every path sits under a random token
 * (`http://HOST:PORT/<token>/`), so only who was shown the printed address can open it. On
 * loopback the Host header must name loopback too: a web page elsewhere cannot reach the
 * dashboard by pointing its own name at 127.0.0.1.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from '../client/url.js';
import { DASHBOARD_SCRIPT } from './client.js';
import { dashboardPage } from './page.js';

export interface DashboardApp {
  mode: 'live' | 'browse';
  title: string;
  /** A path under the base (no leading slash); false when it is not the app's. */
  handle(
    path: string,
    query: URLSearchParams,
    req: IncomingMessage,
    res: ServerResponse,
  ): boolean | Promise<boolean>;
}

export interface DashboardServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'";
/** The policy of the reports the dashboard serves: they carry no script and fetch nothing. */
export const DOCUMENT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

let echartsJs: Buffer | null = null;
function echartsFile(): Buffer {
  // The "common" build (line, bar, scatter, markLine): what report/charts renders with too.
  echartsJs ??= readFileSync(
    createRequire(import.meta.url).resolve('echarts/dist/echarts.common.min.js'),
  );
  return echartsJs;
}

/** Sends `body` with its content type; `csp` defaults to a document's (no scripts). */
export function send(
  res: ServerResponse,
  status: number,
  content: { type: string; body: string | Buffer; csp?: string },
): void {
  const { type, body, csp = DOCUMENT_CSP } = content;
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': csp,
  });
  res.end(body);
}

export function sendJson(res: ServerResponse, body: unknown): void {
  send(res, 200, { type: 'application/json; charset=utf-8', body: JSON.stringify(body) });
}

export function notFound(res: ServerResponse): void {
  send(res, 404, { type: 'text/plain; charset=utf-8', body: 'not found\n' });
}

function isLoopbackName(host: string): boolean {
  try {
    return isLoopbackHost(`http://${host}/`);
  } catch {
    return false; // no Host header, or not a host
  }
}

function tokenMatches(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The path under the base, or null when the request is not for this dashboard. */
function pathUnderBase(req: IncomingMessage, token: string | null): string | null {
  // Kept encoded: an app decodes the parts it reads (a run's id may hold a slash).
  const path = (req.url ?? '/').split('?')[0];
  if (token === null) {
    const host = req.headers.host ?? '';
    return isLoopbackName(host) ? path.slice(1) : null;
  }
  const m = /^\/([^/]+)(\/.*)?$/.exec(path);
  if (!m || !tokenMatches(m[1], token)) return null;
  if (m[2] === undefined) return null;
  return m[2].slice(1);
}

/**
 * `flag` names the option in a listen error; `token` forces the token on (tests on loopback)
 * or off — by default it is on for any address other than loopback.
 */
export async function startDashboardServer(
  app: DashboardApp,
  opts: { port: number; host?: string; flag: string; token?: boolean },
): Promise<DashboardServer> {
  const host = opts.host ?? '127.0.0.1';
  const needsToken = opts.token ?? !isLoopbackName(host.includes(':') ? `[${host}]` : host);
  const token = needsToken ? randomBytes(18).toString('base64url') : null;
  const server = createServer((req, res) => {
    const route = async () => {
      const path = pathUnderBase(req, token);
      if (path === null || req.method !== 'GET') return notFound(res);
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      if (path === '')
        return send(res, 200, {
          type: 'text/html; charset=utf-8',
          body: dashboardPage(app.mode, app.title),
          csp: PAGE_CSP,
        });
      if (path === 'assets/dashboard.js')
        return send(res, 200, {
          type: 'text/javascript; charset=utf-8',
          body: DASHBOARD_SCRIPT,
          csp: PAGE_CSP,
        });
      if (path === 'assets/echarts.min.js')
        return send(res, 200, {
          type: 'text/javascript; charset=utf-8',
          body: echartsFile(),
          csp: PAGE_CSP,
        });
      if (!(await app.handle(path, query, req, res))) notFound(res);
    };
    route().catch((e: Error) => {
      if (!res.headersSent)
        send(res, 500, { type: 'text/plain; charset=utf-8', body: `${e.message}\n` });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `${opts.flag} ${opts.port}: cannot listen on ${host}:${opts.port} (${e.code ?? e.message})`,
        ),
      ),
    );
    server.listen(opts.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/${token === null ? '' : `${token}/`}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
