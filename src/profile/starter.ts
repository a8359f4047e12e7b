/**
 * Starter profiles for a user's own server (`rtcap init URL`): a hosted Supabase project, a
 * self-hosted Supabase Realtime, or a plain Phoenix channels app. Pure: a URL and a few choices
 * in, the profile's YAML text and the set-up the server needs out (docs/YOUR-SERVER.md explains
 * each step). Secrets never appear in the text: keys are `${ENV_VAR}` references that the
 * profile loader expands at run time.
 */

import { wsUrlProblem } from './ws-url.js';
import {
  HEADER,
  PRIVATE_CHANNEL_SQL,
  StarterError,
  wireLines,
  type Starter,
  type StarterKind,
  type StarterRequest,
} from './starter-parts.js';
import { realtimeStarter } from './starter-realtime.js';

export {
  COMMAND_PREFIX,
  PRIVATE_CHANNEL_SQL,
  REALTIME_DEV_HOST,
  STARTER_KINDS,
  StarterError,
  type Starter,
  type StarterEncoding,
  type StarterKind,
  type StarterRequest,
} from './starter-parts.js';

/** Hosted projects: the Free plan's quotas (docs/PROTOCOL.md §8.2); more reads as rejections. */
export const HOSTED_FREE_QUOTAS = { connections: 200, messagesPerS: 100, joinsPerS: 100 } as const;

const SUPABASE_HOST = /^([a-z0-9-]+)\.supabase\.(co|in)$/i;

/** The socket URL for a URL as a user may paste it, and the kind it names, if any. */
export function normaliseUrl(input: string): { url: string; hosted: boolean } {
  let u: URL;
  try {
    u = new URL(input);
  } catch {
    // The commonest slip (a port past 65535) named, as `--url` and target.url name it.
    const why = wsUrlProblem(input.replace(/^http(s?):/i, 'ws$1:'));
    const detail = why?.startsWith('port ') ? `: ${why}` : '';
    throw new StarterError(
      `"${input}" is not a URL${detail}: give the server's address, e.g. ws://127.0.0.1:4000/socket/websocket`,
    );
  }
  const scheme = { 'ws:': 'ws', 'wss:': 'wss', 'http:': 'ws', 'https:': 'wss' }[u.protocol];
  if (!scheme)
    throw new StarterError(
      `${u.protocol} URLs are not WebSocket servers: use ws://, wss://, http:// or https://`,
    );
  if (u.username || u.password || u.search) {
    throw new StarterError(
      'give the URL without credentials or query parameters: keys go in environment variables (rtcap init prints which)',
    );
  }
  const hosted = SUPABASE_HOST.test(u.hostname);
  let path = u.pathname.replace(/\/+$/, '');
  if (hosted && (path === '' || path === '/realtime/v1')) path = '/realtime/v1/websocket';
  else if (path.endsWith('/realtime/v1') || path.endsWith('/socket')) path += '/websocket';
  else if (!path.endsWith('/websocket')) {
    throw new StarterError(
      `${u.origin}${path || '/'} is not a socket path: give the WebSocket endpoint, e.g. ` +
        `${scheme}://${u.host}/socket/websocket (Realtime or a Phoenix app) or ` +
        `${scheme}://${u.host}/realtime/v1/websocket (behind the Supabase gateway)`,
    );
  }
  if (hosted && scheme !== 'wss')
    throw new StarterError('hosted Supabase projects are reached over wss:// (https://)');
  return { url: `${scheme}://${u.host}${path}`, hosted };
}

/** The kind a URL names, or null when only the user can say (a local /socket/websocket). */
export function inferKind(url: string, hosted: boolean): StarterKind | null {
  if (hosted) return 'supabase';
  if (new URL(url).pathname.includes('/realtime/v1/')) return 'realtime';
  return null;
}

/** A host name with an optional port: labels of letters, digits and hyphens (RFC 1123). */
const HOST_HEADER =
  /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::\d{1,5})?$/i;

/** --host: a Host header for a self-hosted Realtime's tenant, written as target.host. */
function checkHost(host: string, kind: StarterKind): void {
  if (kind !== 'realtime')
    throw new StarterError(
      `--host names a self-hosted Realtime's tenant (--kind realtime); a ${kind === 'supabase' ? 'hosted project is reached by its own address' : 'Phoenix app has no tenants'}`,
    );
  if (!HOST_HEADER.test(host))
    throw new StarterError(
      `--host "${host}" is not a host name: give the Host header whose first label is the tenant, e.g. realtime-private.localhost`,
    );
}

export function buildStarter(req: StarterRequest): Starter {
  const { url, hosted } = normaliseUrl(req.url);
  const kind = req.kind ?? inferKind(url, hosted);
  if (!kind) {
    throw new StarterError(
      `say which server ${url} is: --kind realtime (Supabase Realtime, self-hosted, or rtcap serve) or --kind phoenix (a plain Phoenix channels app)`,
    );
  }
  if (hosted && kind !== 'supabase')
    throw new StarterError(`${url} is a hosted Supabase project: --kind supabase`);
  if (kind === 'supabase' && !hosted) {
    throw new StarterError(
      `--kind supabase is for hosted projects (https://<ref>.supabase.co); for ${url} use --kind realtime`,
    );
  }
  if (req.private && kind === 'phoenix')
    throw new StarterError(
      '--private is a Supabase Realtime feature (RLS on realtime.messages); a Phoenix app authorises joins itself',
    );
  if (req.topic !== undefined && req.topic.trim() === '')
    throw new StarterError('--topic needs a topic name, e.g. room:lobby (it was empty)');
  if (req.host !== undefined) checkHost(req.host, kind);
  if (kind === 'phoenix') return phoenixStarter(url, req.topic ?? 'room:lobby', req);
  if (req.topic)
    throw new StarterError(
      '--topic is for Phoenix apps; Supabase kinds use realtime:bench (public) or realtime:room-<n> (private)',
    );
  return kind === 'supabase' ? hostedStarter(url, req) : realtimeStarter(url, req);
}

function hostedStarter(url: string, req: StarterRequest): Starter {
  const priv = req.private === true;
  const q = HOSTED_FREE_QUOTAS;
  const env = [
    {
      name: 'SUPABASE_ANON_KEY',
      holds:
        "the project's anon key (a JWT) or publishable key (sb_publishable_…): Project Settings → API Keys",
    },
  ];
  if (priv)
    env.push({
      name: 'SUPABASE_JWT_SECRET',
      holds:
        "the project's legacy JWT secret, to mint one `authenticated` token per connection: Project Settings → JWT Keys",
    });
  const auth = priv
    ? `  auth:\n    apikey: \${SUPABASE_ANON_KEY}     # the socket key\n    jwt_secret: \${SUPABASE_JWT_SECRET} # mints each connection's access_token (role authenticated)\n    role: authenticated\n`
    : `  auth:\n    apikey: \${SUPABASE_ANON_KEY}     # anon or publishable key; sent as ?apikey=\n    apikey_in: query\n`;
  // Free plan: at most 200 connections and 100 messages/s, where every delivery and every send
  // counts. 80 connections × 1 message/s is 80 deliveries + 1 send = 81 events/s: under it.
  const yaml =
    HEADER(
      "Hosted Supabase project: small steps that stay under the Free plan's quotas.",
      url,
      req.probed,
    ) +
    `# Quotas (Free: ${q.connections} connections, ${q.messagesPerS} messages/s, ${q.joinsPerS} joins/s; every delivery
# counts): a step above your plan's quotas reads as server rejections, not as capacity.
# rtcap cannot sample a hosted Realtime's CPU or memory: those figures stay null ("—").
name: my-supabase-project
scenario: ${priv ? 'broadcast-private' : 'broadcast-public'}
target:
  url: ${url}
  dialect: supabase
${wireLines(req.encoding)}${priv ? '' : '  topic: realtime:bench\n'}${auth}  join_timeout: 15s
${priv ? 'private: { topic_prefix: room-, role: authenticated, sub_prefix: user- }\n' : ''}load:
  join_rate: 10
  self: false
  drain: 5s
  steps:
${
  priv
    ? `    - { rooms: 5, members: 4, connections: 20, room_send_rate: 1, duration: 20s }
    - { rooms: 10, members: 4, connections: 40, room_send_rate: 1, duration: 20s }
    - { rooms: 20, members: 4, connections: 80, room_send_rate: 0.5, duration: 20s }`
    : `    - { connections: 25, send_rate: 1, duration: 20s }
    - { connections: 50, send_rate: 1, duration: 20s }
    - { connections: 80, send_rate: 1, duration: 20s }`
}
slo: { p95_ms: 500 }
`;
  const setup = [
    `export ${env.map((e) => e.name).join(' and ')} (${env.map((e) => e.holds).join('; ')}).`,
    'Realtime must be enabled for the project (Project Settings → Realtime); "Allow public access" must be on for public channels.',
    ...(priv
      ? [
          `Private channels need RLS policies on realtime.messages; run this SQL in the SQL editor:\n${PRIVATE_CHANNEL_SQL}`,
        ]
      : []),
    `Your plan's quotas (Free: ${q.connections} connections, ${q.messagesPerS} messages/s) cap what a run can show: past them rtcap reports rejections ("Too many connected users", "Too many messages per second").`,
  ];
  return { kind: 'supabase', url, yaml, env, setup };
}

/** target.receive_event: what the probe saw the app relay a push as, else `broadcast`. */
function receiveEventLine(probed: string | undefined): string {
  return probed === undefined
    ? 'broadcast  # the event members receive'
    : `${JSON.stringify(probed)}  # probed: the app relays rtcap's pushes as this event`;
}

function phoenixStarter(url: string, topic: string, req: StarterRequest): Starter {
  const yaml =
    HEADER(
      'A plain Phoenix channels app: a short public broadcast ramp on one topic.',
      url,
      req.probed,
    ) +
    `# The app's channel must relay rtcap's "broadcast" pushes to the topic's other members (the
# handle_in printed by rtcap init). Server CPU and memory: server_pid: N on this machine.
name: my-phoenix-app
scenario: broadcast-public
target:
  url: ${url}
  dialect: phoenix
${wireLines(req.encoding)}  topic: "${topic}"
  join_payload: {}          # the phx_join payload your channel's join/3 expects
  push_event: broadcast     # the event rtcap pushes
  receive_event: ${receiveEventLine(req.receiveEvent)}
  params: {}                # socket params your UserSocket's connect/3 expects (e.g. token)
  instance: { vcpus: 2, memory_mb: 4096 }
load:
  join_rate: 50
  self: false
  drain: 5s
  steps:
    - { connections: 200, send_rate: 5, duration: 15s }
    - { connections: 500, send_rate: 5, duration: 15s }
    - { connections: 500, send_rate: 20, duration: 15s }
slo: { p95_ms: 200 }
`;
  const setup = [
    `Your channel for "${topic}" must relay rtcap's pushes, e.g.:\n` +
      '  def handle_in("broadcast", payload, socket) do\n' +
      '    broadcast_from!(socket, "broadcast", payload)\n' +
      '    {:noreply, socket}\n' +
      '  end',
    'A socket that needs params (a token) gets them from target.params; a join that needs a payload from target.join_payload.',
  ];
  return { kind: 'phoenix', url, yaml, env: [], setup };
}
