/**
 * How `rtcap init` probes the server a starter profile is for: with the token that profile
 * will use (the key from the environment it names, or — for a self-hosted Realtime whose secret
 * is not exported — the published development secret, which rtcap serve and the development
 * stack use), the Host header that names the tenant, and the topic and join payload of a
 * Phoenix app. Hosted projects are probed only when their key is exported.
 */
import { TokenSource } from '../client/auth.js';
import { isLoopbackHost } from '../client/url.js';
import { DEV_JWT_SECRET } from '../builtin/config.js';
import type { Starter, StarterRequest } from '../profile/starter.js';
import { redactText, registerSecrets } from '../redact/redact.js';
import { probeServer, type ProbeAnswer, type ProbeRequest } from './probe.js';

/** Each wait of the probe (connect, join reply, the broadcast back): a few seconds in all. */
export const INIT_PROBE_TIMEOUT_MS = 2_000;

/** The host the starter's profile sends for a self-hosted Realtime (its tenant). */
const REALTIME_HOST = 'realtime-dev.localhost';

export type InitProbe =
  { probed: false; line: string } | (ProbeAnswer & { probed: true; devSecret?: string });

/** Probes the starter's server; `env` is where the profile's keys come from (process.env). */
export async function probeForStarter(
  starter: Starter,
  req: StarterRequest,
  env: Record<string, string | undefined>,
  timeoutMs = INIT_PROBE_TIMEOUT_MS,
): Promise<InitProbe> {
  const base = { url: starter.url, timeoutMs, apikeyIn: 'query' as const };
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
    if (!key)
      return {
        probed: false,
        line: `not probed: SUPABASE_ANON_KEY is not set (export it and run init again to have the server probed): wrote vsn 2.0.0 binary broadcasts, what current realtime-js sends`,
      };
    registerSecrets([key]);
    probe = {
      ...base,
      dialect: 'supabase',
      headers: {},
      tokens: new TokenSource({ apikey: key, role: 'anon', ttlMs: 60_000 }),
    };
  } else {
    const secret = env.REALTIME_JWT_SECRET || DEV_JWT_SECRET;
    if (!env.REALTIME_JWT_SECRET) devSecret = DEV_JWT_SECRET;
    registerSecrets([env.REALTIME_JWT_SECRET]);
    probe = {
      ...base,
      dialect: 'supabase',
      headers: { host: REALTIME_HOST },
      tokens: new TokenSource({ jwtSecret: secret, role: 'anon', ttlMs: 60_000 }),
    };
  }
  const answer = await probeServer(probe);
  const line = redactText(answer.line);
  if (answer.ok && devSecret) return { ...answer, line, probed: true, devSecret };
  if (!answer.ok && answer.why === 'rejected')
    return { ...answer, line: `${line}: ${keyHint(starter.kind, devSecret)}`, probed: true };
  return { ...answer, line, probed: true };
}

/** Which key the probe used, so a refusal says what to export before running init again. */
function keyHint(kind: Starter['kind'], devSecret: string | undefined): string {
  if (kind === 'supabase') return 'is SUPABASE_ANON_KEY the project’s anon or publishable key?';
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
