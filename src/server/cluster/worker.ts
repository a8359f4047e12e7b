/**
 * One process of `rtcap serve --workers N`: a RealtimeServer on the shared port whose
 * fan-outs, presence, rate counts, database calls and /metrics go through the primary
 * (messages.ts says what crosses). The primary coordinates shutdown; a worker whose primary
 * is gone stops too.
 */
import cluster from 'node:cluster';
import { RealtimeServer } from '../server.js';
import type { Tenant } from '../tenant.js';
import { Outgoing } from '../wire.js';
import {
  COUNTERS,
  WORKER_SPEC_ENV,
  type CounterName,
  type CountsMessage,
  type RatesMessage,
  type ToPrimary,
  type ToWorker,
  type WorkerSpec,
} from './messages.js';
import { RemoteDb } from './remote-db.js';
import { AcceptGate, ownOpenFilesLimit } from './accept-gate.js';

/** Entry of a worker process (cluster/worker-main.ts). */
export async function runWorker(): Promise<void> {
  const raw = process.env[WORKER_SPEC_ENV];
  if (!raw || !cluster.isWorker) throw new Error('not started as an rtcap serve worker');
  const spec = JSON.parse(raw) as WorkerSpec;
  const remoteDb = spec.dbUrl ? new RemoteDb(spec.dbUrl, post) : null;
  const server = bridgedServer(spec, remoteDb);
  const metricsText = textRequests(server);

  const flushEveryMs = Math.max(20, Math.min(250, Math.floor(spec.timings.rateTickMs / 4)));
  const flushTimer = setInterval(() => post(counts(server)), flushEveryMs);
  flushTimer.unref();
  let closing = false;
  let gate: AcceptGate | null = null;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    gate?.stop();
    clearInterval(flushTimer);
    await server.close().catch(() => undefined);
    process.exit(0);
  };

  process.on('message', (m: ToWorker) => {
    if (m.t === 'shutdown') void shutdown();
    else if (m.t === 'acceptPause') gate?.answer(m.ok);
    else if (m.t === 'metricsText') metricsText.answered(m.id, m.text);
    else onPrimaryMessage(server, remoteDb, m);
  });
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => void shutdown());
  process.on('disconnect', () => void shutdown());

  await new Promise<void>((resolve, reject) => {
    server.http.once('error', reject);
    server.http.listen(spec.port, spec.host, () => resolve());
  });
  gate = acceptGate(server, spec);
  server.startTimers();
  await server.startDatabase();
  const addr = server.http.address();
  post({ t: 'ready', port: typeof addr === 'object' && addr ? addr.port : spec.port });
}

/** Near its open-file limit the worker stops accepting while another accepts (accept-gate.ts). */
function acceptGate(server: RealtimeServer, spec: WorkerSpec): AcceptGate | null {
  const limit = ownOpenFilesLimit();
  if (limit === null) return null;
  return new AcceptGate({
    server: server.http,
    listen: () => {
      // Another worker holds the shared socket open, so this gets the same one back.
      const failed = (e: Error) => server.log(`listening again failed: ${e.message}`);
      server.http.once('error', failed);
      server.http.listen(spec.port, spec.host, () => server.http.off('error', failed));
    },
    ask: () => post({ t: 'acceptFull' }),
    resumed: () => post({ t: 'acceptResumed' }),
    limit,
    log: (l) => server.log(l),
  });
}

/**
 * Sends to the primary while the channel is open. A primary that went away reports the
 * failed write to the callback (dropped: the 'disconnect' that follows stops this worker).
 */
function post(m: ToPrimary): void {
  if (process.connected) process.send!(m, undefined, undefined, () => undefined);
}

/** The worker's server, with fan-outs and presence forwarded to the other workers. */
function bridgedServer(spec: WorkerSpec, remoteDb: RemoteDb | null): RealtimeServer {
  const server = new RealtimeServer({
    port: spec.port,
    host: spec.host,
    jwtSecret: spec.jwtSecret,
    tls: spec.tls,
    config: spec.config,
    timings: spec.timings,
    maxBufferedBytes: spec.maxBufferedBytes,
    database: false,
    ...(remoteDb ? { db: remoteDb } : {}),
    log: (l) => process.stderr.write(`rtcap serve [worker ${spec.node}]: ${l}\n`),
  });
  server.externalTicks = true;
  server.node = spec.node;
  server.presence.node = spec.node;
  server.presence.bridge = { forward: (op) => post({ t: 'presence', op }) };
  for (const t of server.tenants.all) {
    t.bridge = {
      forward: (tenantId, key, out, gate) =>
        post({
          t: 'fanout',
          tenantId,
          key,
          topic: out.topic,
          event: out.event,
          body: out.body,
          gate,
        }),
    };
  }
  return server;
}

/** /metrics on a worker asks the primary for the whole instance's text. */
function textRequests(server: RealtimeServer): { answered: (id: number, text: string) => void } {
  const pending = new Map<number, (text: string) => void>();
  let seq = 0;
  server.metrics.clusterText = () =>
    new Promise<string>((resolve) => {
      const id = seq++;
      pending.set(id, resolve);
      post({ t: 'metrics', id });
    });
  return {
    answered: (id, text) => {
      const r = pending.get(id);
      pending.delete(id);
      r?.(text);
    },
  };
}

type RelayedMessage = Exclude<ToWorker, { t: 'shutdown' } | { t: 'metricsText' }>;

function onPrimaryMessage(
  server: RealtimeServer,
  remoteDb: RemoteDb | null,
  m: RelayedMessage,
): void {
  switch (m.t) {
    case 'fanout': {
      const t = server.tenantById(m.tenantId);
      if (!t) return;
      const n = t.deliverLocal(m.key, new Outgoing(m.topic, m.event, m.body), null, m.gate);
      if (m.gate === 'presence') server.stats.presenceEvents += n;
      else server.stats.deliveries += n;
      return;
    }
    case 'presence':
      return server.presence.applyRemote(m.op);
    case 'presenceDrop':
      return server.presence.dropNode(m.node, (id) => server.tenantById(id));
    case 'rates':
      return applyRates(server, remoteDb, m);
    case 'dbReply':
      return remoteDb?.reply(m);
    case 'change':
      return remoteDb?.change(m.change);
    case 'metricsJson?':
      void server.metrics.json().then((json) => post({ t: 'metricsJson', id: m.id, json }));
      return;
  }
}

/** The instance-wide counter state and the other workers' users, from the primary's tick. */
function applyRates(server: RealtimeServer, remoteDb: RemoteDb | null, m: RatesMessage): void {
  for (const [id, r] of Object.entries(m.tenants)) {
    const t = server.tenantById(id);
    if (!t) continue;
    COUNTERS.forEach((name, i) => t[name].setState(r.s[i][0], r.s[i][1]));
    t.remoteUsers = r.remoteUsers;
  }
  if (remoteDb && m.db) remoteDb.cachedStats = m.db;
}

/** This worker's counts since the last flush (taken, so each is sent once). */
function counts(server: RealtimeServer): CountsMessage {
  const tenants: CountsMessage['tenants'] = {};
  for (const t of server.tenants.all) {
    tenants[t.id] = { c: COUNTERS.map((name) => takePending(t, name)), users: t.users.size };
  }
  return { t: 'counts', tenants };
}

function takePending(t: Tenant, name: CounterName): number {
  const c = t[name];
  const n = c.pending;
  c.pending = 0;
  return n;
}
