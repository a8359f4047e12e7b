/**
 * The starter profile for a self-hosted Supabase Realtime (or `rtcap serve`): a short public or
 * private broadcast ramp. A server on this machine needs no metrics endpoint: its CPU and memory
 * are sampled from the process listening on the URL's port (run/samplers), so the profile asks
 * for no metrics token. A remote one is read from its Prometheus /metrics.
 */
import { benchTableSetupSql } from '../builtin/bench-table.js';
import {
  COMMAND_PREFIX,
  HEADER,
  PRIVATE_CHANNEL_SQL,
  REALTIME_DEV_HOST,
  wireLines,
  type Starter,
  type StarterRequest,
} from './starter-parts.js';

const SECRET_HOLDS =
  "the tenant's JWT secret (API_JWT_SECRET; rtcap serve and the development stack use the published super-secret-jwt-token-with-at-least-32-characters-long)";
const METRICS_HOLDS =
  "a JWT signed with the server's METRICS_JWT_SECRET, for its /metrics (server CPU and memory); leave metrics_url out if you have none";

function resourceLines(url: string, local: boolean): string {
  if (local) {
    const port = new URL(url).port || (url.startsWith('wss:') ? '443' : '80');
    return `  # Server CPU and memory: sampled from the process listening on port ${port} (this machine).\n`;
  }
  const metrics = new URL(url);
  metrics.protocol = metrics.protocol === 'wss:' ? 'https:' : 'http:';
  metrics.pathname = '/metrics';
  return `  # Server CPU and memory: Realtime's Prometheus endpoint (or server_pid: N on this machine).
  metrics_url: ${metrics.href}
  metrics_token: \${REALTIME_METRICS_TOKEN}
  instance: { vcpus: 2, memory_mb: 4096 }   # the server's own size: CPU % and memory % are of it
`;
}

function steps(priv: boolean): string {
  return priv
    ? `    - { rooms: 25, members: 8, connections: 200, room_send_rate: 2, duration: 15s }
    - { rooms: 50, members: 8, connections: 400, room_send_rate: 2, duration: 15s }
    - { rooms: 50, members: 8, connections: 400, room_send_rate: 5, duration: 15s }`
    : `    - { connections: 200, send_rate: 5, duration: 15s }
    - { connections: 500, send_rate: 5, duration: 15s }
    - { connections: 500, send_rate: 20, duration: 15s }`;
}

function setupOf(req: StarterRequest, local: boolean, priv: boolean): string[] {
  const secret = req.devSecret
    ? `The tenant's JWT secret: the probe's token, signed with the published development secret, was accepted:\n${COMMAND_PREFIX}export REALTIME_JWT_SECRET=${req.devSecret}`
    : `export REALTIME_JWT_SECRET (${SECRET_HOLDS}).`;
  return [
    secret,
    ...(local ? [] : [`export REALTIME_METRICS_TOKEN (${METRICS_HOLDS}).`]),
    "The tenant's quotas (max_concurrent_users, max_events_per_second, max_joins_per_second) must be above the steps, or they read as rejections: raise them in the tenant's settings for the benchmark.",
    ...(priv
      ? [
          `Private channels need RLS policies on realtime.messages in the tenant's database:\n${PRIVATE_CHANNEL_SQL}`,
        ]
      : []),
    `For Postgres Changes (scenario: postgres-changes, target.database_url: the tenant's database), the table the loader writes, which a run checks before it starts (a server that reads another publication than supabase_realtime: set changes.publication and use its name below):\n${benchTableSetupSql()}`,
  ];
}

export function realtimeStarter(url: string, req: StarterRequest): Starter {
  const priv = req.private === true;
  const local = req.local === true;
  const env = [{ name: 'REALTIME_JWT_SECRET', holds: SECRET_HOLDS }];
  if (!local) env.push({ name: 'REALTIME_METRICS_TOKEN', holds: METRICS_HOLDS });
  const yaml =
    HEADER(
      `Supabase Realtime (self-hosted, or rtcap serve): a short ${priv ? 'private' : 'public'} broadcast ramp.`,
      url,
      req.probed,
    ) +
    `# The tenant is the first label of the Host header (self-hosted development stack: realtime-dev).
name: my-realtime
scenario: ${priv ? 'broadcast-private' : 'broadcast-public'}
target:
  url: ${url}
  dialect: supabase
${wireLines(req.encoding)}  host: ${req.host ?? REALTIME_DEV_HOST}
${priv ? '' : '  topic: realtime:bench\n'}  auth:
    jwt_secret: \${REALTIME_JWT_SECRET}   # mints one token per connection
    role: ${priv ? 'authenticated' : 'anon'}
${resourceLines(url, local)}${priv ? 'private: { topic_prefix: room-, role: authenticated, sub_prefix: user- }\n' : ''}load:
  join_rate: 50
  self: false
  drain: 5s
  steps:
${steps(priv)}
slo: { p95_ms: 200 }
`;
  return { kind: 'realtime', url, yaml, env, setup: setupOf(req, local, priv) };
}
