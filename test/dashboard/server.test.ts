/**
 * The dashboard's HTTP server over a real socket: the page, its script and echarts' own dist
 * file are served under a strict content policy; on loopback a Host header naming another
 * host is refused (a page elsewhere cannot reach the dashboard through its own name); with a
 * token every path needs it; anything else is the app's or not found.
 */
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startDashboardServer,
  sendJson,
  type DashboardApp,
  type DashboardServer,
} from '../../src/dashboard/server.js';

const app: DashboardApp = {
  mode: 'live',
  title: 'test <page>',
  handle(path, query, _req, res) {
    if (path !== 'api/echo') return false;
    sendJson(res, { q: query.get('q') });
    return true;
  },
};

function get(
  url: string,
  host?: string,
): Promise<{ status: number; type: string; csp: string; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        headers: host ? { host } : {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            type: String(res.headers['content-type']),
            csp: String(res.headers['content-security-policy']),
            body,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let server: DashboardServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('startDashboardServer', () => {
  it('serves the page, its script and echarts from node_modules on loopback, the rest through the app', async () => {
    server = await startDashboardServer(app, { port: 0, flag: '--dashboard' });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    const page = await get(server.url);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>test &lt;page&gt;</title>');
    expect(page.body).toContain('data-mode="live"');
    expect(page.csp).toContain("default-src 'none'");
    expect(page.csp).toContain("script-src 'self'");
    const echarts = await get(`${server.url}assets/echarts.min.js`);
    expect(echarts.body).toBe(
      readFileSync(
        createRequire(import.meta.url).resolve('echarts/dist/echarts.common.min.js'),
        'utf8',
      ),
    );
    expect((await get(`${server.url}assets/dashboard.js`)).body).toMatch(/^\(function \(\) \{/);
    expect(JSON.parse((await get(`${server.url}api/echo?q=x`)).body)).toEqual({ q: 'x' });
    expect((await get(`${server.url}nothing`)).status).toBe(404);
  });

  it('refuses a Host header that does not name loopback', async () => {
    server = await startDashboardServer(app, { port: 0, flag: '--dashboard' });
    expect((await get(server.url, `localhost:${server.port}`)).status).toBe(200);
    expect((await get(server.url, 'evil.example')).status).toBe(404);
    expect((await get(server.url, '127.0.0.1.evil.example')).status).toBe(404);
  });

  it('with a token, every path needs it', async () => {
    server = await startDashboardServer(app, { port: 0, flag: '--dashboard', token: true });
    const m = /^http:\/\/127\.0\.0\.1:\d+\/([A-Za-z0-9_-]{24})\/$/.exec(server.url);
    expect(m).not.toBeNull();
    const base = `http://127.0.0.1:${server.port}/`;
    expect((await get(server.url)).status).toBe(200);
    expect((await get(`${server.url}api/echo?q=y`)).status).toBe(200);
    expect((await get(base)).status).toBe(404);
    expect((await get(`${base}api/echo`)).status).toBe(404);
    // A token one character off: the last one changed to a character it is not.
    const last = m![1].slice(-1);
    const wrong = m![1].slice(0, -1) + (last === 'x' ? 'y' : 'x');
    expect((await get(`${base}${wrong}/`)).status).toBe(404);
  });

  it('names the flag when the port cannot be bound', async () => {
    server = await startDashboardServer(app, { port: 0, flag: '--dashboard' });
    await expect(
      startDashboardServer(app, { port: server.port, flag: '--dashboard' }),
    ).rejects.toThrow(
      `--dashboard ${server.port}: cannot listen on 127.0.0.1:${server.port} (EADDRINUSE)`,
    );
  });
});
