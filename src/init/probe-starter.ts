/**
 * How `rtcap init` probes the server a starter profile is for: with the token that profile
 * will use (the key from the environment it names, or — for a self-hosted Realtime whose secret
 * is not exported — the published development secret, which rtcap serve and the development
 * stack use), the Host header that names the tenant (--host, as target.host), and the topic and
 * join payload of a Phoenix app. A private profile is probed on its own path: its first private
 * topic (realtime:room-0), joined with its first user's token (role authenticated, sub user-0),
 * as the run's first connection will join it. Hosted projects are probed only when their keys
 * are exported.
 */
import { TokenSource } from '../client/auth.js';
import { isLoopbackHost } from '../client/url.js';
import { DEV_JWT_SECRET } from '../builtin/config.js';
import { JOIN_TIMEOUT_MS } from '../protocol/constants.js';
import { REALTIME_DEV_HOST, type Starter, type StarterRequest } from '../profile/starter.js';
import { redactText, registerSecrets } from '../redact/redact.js';
import { probeServer, type PrivateJoin, type ProbeAnswer, type ProbeRequest } from './probe.js';
import { probePhoenix } from './probe-phoenix.js';

/** The probe's wait for its broadcast to come back (or reach another member). */
export const INIT_PROBE_TIMEOUT_MS = 2_000;

/**
 * The probe's wait for the upgrade and a join's reply: a client's push timeout, so a join Realtime
 * refuses, answered after its 5 s channel error backoff, is read as the refusal it is.
 */
export const INIT_PROBE_REPLY_TIMEOUT_MS = JOIN_TIMEOUT_MS;

/**
 * The private join of a starter's first connection: its `private:` section is topic_prefix
 * room-, role authenticated, sub_prefix user- (profile/starter), so connection 0 joins
 * realtime:room-0 with a token for sub user-0.
 */
function privateJoin(jwtSecret: string): PrivateJoin {
  return {
    topic: 'realtime:room-0',
    joinTokens: new TokenSource({
      jwtSecret,
      role: 'authenticated',
      ttlMs: 60_000,
      claims: () => ({ role: 'authenticated', sub: 'user-0' }),
    }),
    whose: "user-0's token (role authenticated)",
  };
}

export type InitProbe =
  { probed: false; line: string } | (ProbeAnswer & { probed: true; devSecret?: string });

/** Probes the starter's server; `env` is where the profile's keys come from (process.env). */
export async function probeForStarter(
  starter: Starter,
  req: StarterRequest,
  env: Record<string, string | undefined>,
  timeoutMs = INIT_PROBE_TIMEOUT_MS,
): Promise<InitProbe> {
  const base = {
    url: starter.url,
    timeoutMs,
    replyTimeoutMs: INIT_PROBE_REPLY_TIMEOUT_MS,
    apikeyIn: 'query' as const,
  };
  let probe: ProbeRequest;
  let devSecret: string | undefined;
  if (starter.kind === 'phoenix') {
    probe = {
      ...base,
      dialect: 'phoenix',
      headers: {},
      tokens: new TokenSource({ role: 'anon', ttlMs: 60_000 }),
      topic: req.topic ?? 'room:lobby',
      joinPayload: {},
    };
  } else if (starter.kind === 'supabase') {
    const key = env.SUPABASE_ANON_KEY;
    const userSecret = env.SUPABASE_JWT_SECRET;
    const missing = key
      ? req.private && !userSecret
        ? 'SUPABASE_JWT_SECRET'
        : null
      : 'SUPABASE_ANON_KEY';
    if (missing)
      return {
        probed: false,
        line: `not probed: ${missing} is not set (export it and run init again to have the server probed): wrote vsn 2.0.0 binary broadcasts, what current realtime-js sends`,
      };
    registerSecrets([key, userSecret]);
    probe = {
      ...base,
      dialect: 'supabase',
      headers: {},
      tokens: new TokenSource({ apikey: key, role: 'anon', ttlMs: 60_000 }),
      ...(req.private && userSecret ? { private: privateJoin(userSecret) } : {}),
    };
  } else {
    const secret = env.REALTIME_JWT_SECRET || DEV_JWT_SECRET;
    if (!env.REALTIME_JWT_SECRET) devSecret = DEV_JWT_SECRET;
    registerSecrets([env.REALTIME_JWT_SECRET]);
    const role = req.private ? 'authenticated' : 'anon';
    probe = {
      ...base,
      dialect: 'supabase',
      // The tenant the profile names (target.host), as its run will send it.
      headers: { host: req.host ?? REALTIME_DEV_HOST },
      tokens: new TokenSource({ jwtSecret: secret, role, ttlMs: 60_000 }),
      ...(req.private ? { private: privateJoin(secret) } : {}),
    };
  }
  const answer = await (probe.dialect === 'phoenix' ? probePhoenix(probe) : probeServer(probe));
  const line = redactText(answer.line);
  if (answer.ok && devSecret) return { ...answer, line, probed: true, devSecret };
  if (!answer.ok && answer.why === 'rejected')
    return {
      ...answer,
      line: `${line}: ${keyHint(starter.kind, devSecret, req.private === true)}`,
      probed: true,
    };
  return { ...answer, line, probed: true };
}

/** Which key the probe used, so a refusal says what to export before running init again. */
function keyHint(kind: Starter['kind'], devSecret: string | undefined, priv: boolean): string {
  if (kind === 'supabase')
    return priv
      ? 'is SUPABASE_ANON_KEY the project’s anon or publishable key, and SUPABASE_JWT_SECRET its JWT secret?'
      : 'is SUPABASE_ANON_KEY the project’s anon or publishable key?';
  if (kind === 'phoenix')
    return 'a socket or join that needs params gets them from target.params and target.join_payload (--no-probe writes the profile to edit)';
  return devSecret
    ? 'the probe’s token was signed with the published development secret; export REALTIME_JWT_SECRET (the tenant’s own) and run init again'
    : 'the probe’s token was signed with REALTIME_JWT_SECRET; is it the tenant’s JWT secret?';
}

/** A server on this machine: its CPU and memory come from the process on its port. */
export function isLocalServer(url: string): boolean {
  return isLoopbackHost(url);
}
