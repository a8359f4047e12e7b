/**
 * The built-in realtime server: HTTP + WebSocket endpoint, tenants, timers and the tenant
 * database (docs/PROTOCOL.md §1, §9).
 *
 * `startServer` listens first and then starts the database, so public broadcast never waits
 * on Postgres; it resolves once the database is up (or has failed, or is disabled).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  CLOSE,
  GATEWAY_SOCKET_PATH,
  MAX_FRAME_BYTES,
  REASON,
  SOCKET_PATH,
  VSN_1,
  VSN_2,
} from '../protocol/constants.js';
import { connectRefusal } from './auth.js';
import { Connection } from './connection.js';
import { sleep } from '../util/sleep.js';
import type { DbState, ServerContext, Transport } from './rooms.js';
import { Stats } from './stats.js';
import { databaseOptions, loadDatabase, type ServerDb } from './db-types.js';
import { Metrics } from './metrics.js';
import { resolveTenants } from '../builtin/config.js';
import { DEFAULT_TIMINGS, type ServerOptions, type ServerTimings } from './options.js';
import { ChangesHub } from './postgres-changes.js';
import { PresenceHub } from './presence.js';
import { intern } from './intern.js';
import { handleRest, isRestPath } from './rest.js';
import type { ServerState } from './server-state.js';
import type { Tenant } from './tenant.js';
import { TenantRegistry } from './tenants.js';

/**
 * Phoenix kills a transport over 50 MB of heap (docs/PROTOCOL.md §1.2); a socket with this much
 * unsent is treated the same.
 */
const DEFAULT_MAX_BUFFERED_BYTES = 50 * 1024 * 1024;

export interface RunningServer {
  port: number;
  host: string;
  /** ws://HOST:PORT/socket/websocket */
  url: string;
  /** Password-redacted database URL, or null when running without one. */
  databaseUrl: string | null;
  /** The unredacted connection string, for rtcap's own loaders; never logged. */
  databaseConnectionString: string | null;
  close(): Promise<void>;
}

/** The server's state, also the context its connections and channels see. */
export class RealtimeServer implements ServerContext, ServerState {
  readonly timings: ServerTimings;
  readonly maxBufferedBytes: number;
  readonly stats = new Stats();
  readonly presence: PresenceHub;
  readonly changes: ChangesHub;
  readonly tenants: TenantRegistry;
  readonly metrics: Metrics;
  db: ServerDb | null = null;
  dbState: DbState = 'disabled';
  shuttingDown = false;
  /** Set when the server started the database itself and must stop it. */
  private ownsDb = false;
  readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly timers: NodeJS.Timeout[] = [];
  /** True in a `--workers` worker: rate ticks come from the primary. */
  externalTicks = false;
  /** Worker number under `--workers` (1..N); 0 in a single process. */
  node = 0;

  constructor(readonly opts: ServerOptions) {
    this.timings = { ...DEFAULT_TIMINGS, ...opts.timings };
    this.maxBufferedBytes = opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.tenants = new TenantRegistry(resolveTenants(opts.config, opts.jwtSecret), this.timings);
    this.presence = new PresenceHub(() => this);
    this.presence.tenantFor = (id) => this.tenants.get(id);
    this.changes = new ChangesHub(
      () => this,
      () => this.timings,
    );
    this.metrics = new Metrics(this);
    const onRequest = (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res);
    // https.Server is an http.Server for each event and method used here (request, upgrade, close).
    this.http = opts.tls
      ? (createTlsServer(readTlsFiles(opts.tls), onRequest) as unknown as Server)
      : createServer(onRequest);
    // perMessageDeflate off: frames are pre-built once per message and written as they are
    // (wire.ts). Realtime sets validate_utf8 false and max_frame_size 5,000,000
    // (docs/PROTOCOL.md §1.2).
    this.wss = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      maxPayload: MAX_FRAME_BYTES,
      skipUTF8Validation: true,
      clientTracking: false,
    });
    this.http.on('upgrade', (req, socket, head) => {
      this.onUpgrade(req, socket, head).catch((e) => {
        this.log(`upgrade failed: ${(e as Error).stack ?? e}`);
        socket.destroy();
      });
    });
    this.http.on('clientError', (_e, socket) => socket.destroy());
  }

  log(line: string): void {
    (this.opts.log ?? ((l: string) => process.stderr.write(`rtcap serve: ${l}\n`)))(line);
  }

  *connections(): Iterable<Transport> {
    for (const t of this.tenants.all) yield* t.connections;
  }

  startTimers(): void {
    if (!this.externalTicks) {
      const tick = setInterval(() => {
        for (const t of this.tenants.all) t.tick();
      }, this.timings.rateTickMs);
      this.timers.push(tick);
    }
    // One sweep for every socket's idle timeout instead of a timer per socket.
    const idleMs = this.timings.idleTimeoutMs;
    const sweep = setInterval(
      () => {
        const now = Date.now();
        for (const c of this.connections())
          if (now - c.lastInboundMs > idleMs) c.close(CLOSE.normal);
      },
      Math.max(10, Math.min(1000, Math.floor(idleMs / 4))),
    );
    this.timers.push(sweep);
    for (const t of this.timers) t.unref();
  }

  async startDatabase(): Promise<void> {
    if (this.opts.db) {
      this.db = this.opts.db;
      this.dbState = 'ready';
      return;
    }
    if (this.opts.database === false) return;
    this.dbState = 'starting';
    try {
      // One database serves every tenant; its pools are sized by the first (default) tenant.
      this.db = await loadDatabase(
        databaseOptions(
          this.tenants.all[0].config,
          this.timings,
          this.opts.database?.databaseUrl,
          (l) => this.log(l),
        ),
      );
      this.ownsDb = true;
      this.dbState = 'ready';
    } catch (e) {
      // Public broadcast keeps working; private channels and Postgres Changes get the
      // DB-unavailable join error.
      this.dbState = 'failed';
      this.log(`database unavailable: ${(e as Error).message}`);
    }
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method === 'GET' && path === '/healthcheck') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (req.method === 'GET' && path === '/metrics') {
      this.metrics.respond(res);
      return;
    }
    if (isRestPath(path)) {
      handleRest(this, req, res, path).catch((e) => {
        this.log(`REST ${path} failed: ${(e as Error).stack ?? e}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'Internal server error' }));
      });
      return;
    }
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ errors: { detail: 'Not Found' } }));
  }

  /** `UserSocket.connect/3` checks, in order (docs/PROTOCOL.md §1.5). */
  private async onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', ignoreError);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== SOCKET_PATH && url.pathname !== GATEWAY_SOCKET_PATH) {
      return writeHttp(socket, 404, '');
    }
    const vsn = url.searchParams.get('vsn') ?? VSN_1;
    // An unsupported vsn fails serializer negotiation before the user connect: a bare 403
    // (docs/PROTOCOL.md §1.2).
    if (vsn !== VSN_1 && vsn !== VSN_2) return writeHttp(socket, 403, '');
    const refuse = async (status: number, error: string) => {
      this.stats.connectionsRefused++;
      // No backoff (0 ms) answers at once, without waiting for a timer.
      const backoffMs = this.timings.connectErrorBackoffMs;
      await (backoffMs > 0 ? sleep(backoffMs) : undefined);
      writeHttp(socket, status, JSON.stringify({ error }));
    };
    const tenant = this.tenants.forHost(req.headers.host);
    if (!tenant) return refuse(404, REASON.tenantNotFound);
    if (tenant.config.suspended) return refuse(403, REASON.tenantSuspended);
    const header = req.headers['x-api-key'];
    const token = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('apikey');
    if (!token) return refuse(401, REASON.apiKeyMissing);
    const verified = await tenant.verifier.verify(token);
    if (!verified.ok) {
      const r = connectRefusal(verified);
      return refuse(r.status, r.error);
    }
    const lim = tenant.config;
    if (lim.max_concurrent_users !== null && tenant.userCount >= lim.max_concurrent_users)
      return refuse(429, REASON.tooManyConnectedUsers);
    if (tenant.joins.tripped) return refuse(429, REASON.tooManyJoins);
    if (this.shuttingDown || socket.destroyed) {
      socket.destroy();
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.stats.connectionsOpened++;
      new Connection(ws, this, {
        tenant,
        v2: vsn === VSN_2,
        token: intern(token),
        headers: flatHeaders(req),
      });
    });
  }

  async close(): Promise<void> {
    this.shuttingDown = true;
    for (const t of this.timers) clearInterval(t);
    for (const c of [...this.connections()]) c.close(CLOSE.goingAway);
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
    if (this.ownsDb && this.db) {
      const db = this.db;
      this.db = null;
      await db.stop().catch((e) => this.log(`database stop failed: ${(e as Error).message}`));
    }
  }

  tenantById(id: string): Tenant | undefined {
    return this.tenants.get(id);
  }
}

/**
 * The upgraded socket's error listener, defined out here: a closure made inside onUpgrade would
 * hold that call's whole scope (the request, its headers, URL and token) for the socket's life.
 */
function ignoreError(): void {}

/** The upgrade's headers, for RLS; values most connections share are kept once (intern). */
function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) out[k] = intern(Array.isArray(v) ? v.join(', ') : v);
  return out;
}

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** A refused upgrade: the HTTP response Phoenix's error_handler sends (docs/PROTOCOL.md §1.5). */
function writeHttp(socket: Duplex, status: number, body: string): void {
  if (socket.destroyed) return;
  const type = body ? 'content-type: application/json; charset=utf-8\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n${type}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function readTlsFiles(tls: { certFile: string; keyFile: string }): { cert: Buffer; key: Buffer } {
  const read = (what: string, path: string) => {
    try {
      return readFileSync(path);
    } catch (e) {
      throw new Error(
        `TLS ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        { cause: e },
      );
    }
  };
  return { cert: read('certificate', tls.certFile), key: read('key', tls.keyFile) };
}

/** Starts the server; resolves when it listens and the database is up (or known to be down). */
export async function startServer(opts: ServerOptions = {}): Promise<RunningServer> {
  const server = new RealtimeServer(opts);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.http.once('error', reject);
    server.http.listen(opts.port ?? 4000, host, () => {
      server.http.off('error', reject);
      resolve();
    });
  });
  server.startTimers();
  await server.startDatabase();
  const port = (server.http.address() as AddressInfo).port;
  return {
    port,
    host,
    url: `${opts.tls ? 'wss' : 'ws'}://${host}:${port}${SOCKET_PATH}`,
    databaseUrl: server.db?.url ?? null,
    databaseConnectionString: server.db?.connectionString() ?? null,
    close: () => server.close(),
  };
}
