/**
 * The HTTP side of `--metrics-port`: serves a LiveMetrics at /metrics while a run, sweep or
 * campaign goes on. `serveLiveMetrics` is the one entry point every command uses: pass its
 * `metrics` as the runner's observer, `close()` when the command ends.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LiveMetrics } from './live-metrics.js';

export interface LiveMetricsServer {
  metrics: LiveMetrics;
  /** The bound port (the requested one, or the kernel's pick for 0). */
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function serveLiveMetrics(opts: {
  port: number;
  host?: string;
  metrics?: LiveMetrics;
}): Promise<LiveMetricsServer> {
  const metrics = opts.metrics ?? new LiveMetrics();
  const host = opts.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('rtcap serves its live metrics at /metrics\n');
      return;
    }
    metrics.render(req.headers.accept).then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (e: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${e.message}\n`),
    );
  });
  // A scraper's keep-alive socket must not hold the process open after the run.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `--metrics-port ${opts.port}: cannot listen on ${host}:${opts.port} (${e.code ?? e.message})`,
        ),
      ),
    );
    server.listen(opts.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    metrics,
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
