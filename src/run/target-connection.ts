/** How generator processes reach the target: the socket URL, headers, TLS and token settings. */
import { readFileSync } from 'node:fs';
import { publicJwksOf, TokenSource, type TokenConfig } from '../client/auth.js';
import type { TlsOptions } from '../client/socket-open.js';
import { buildSocketUrl } from '../client/url.js';
import type { Profile } from '../profile/schema.js';
import { readTokenFile } from '../client/auth.js';
import { registerSecrets } from '../redact/redact.js';
import { DEV_JWT_SECRET } from '../builtin/config.js';

/** The built-in server signs with its own secret unless the profile brings a key or token. */
export function tokenConfigOf(profile: Profile, builtin: boolean): TokenConfig {
  const auth = profile.target.auth;
  // The tokens in token files are secrets too: hidden wherever they turn up (an error quoting a
  // refused token).
  for (const file of [auth?.token_file, profile.private.user_token_file]) {
    try {
      if (file) registerSecrets(readTokenFile(file));
    } catch {
      /* unreadable: the workers report it */
    }
  }
  return {
    apikey: auth?.apikey,
    jwtSecret:
      auth?.jwt_secret ??
      (builtin && !auth?.apikey && !auth?.token_file && !auth?.private_key_file
        ? DEV_JWT_SECRET
        : undefined),
    privateKeyFile: auth?.private_key_file,
    alg: auth?.private_key_file ? auth.alg : undefined,
    kid: auth?.kid,
    role: auth?.role ?? 'anon',
    ttlMs: auth?.token_ttl ?? 3_600_000,
    tokenFile: auth?.token_file,
    userTokenFile: profile.private.user_token_file,
    apikeyIn: auth?.apikey_in ?? 'query',
  };
}

/** Mints one token now, so a bad key file or alg stops the run before any process starts. */
export async function checkMinting(tokens: TokenConfig): Promise<void> {
  if (!tokens.privateKeyFile) return;
  await new TokenSource({ ...tokens, apikey: undefined, tokenFile: undefined }).tokenFor(0);
}

/**
 * The built-in server's tenant config: the profile's (or `config`, e.g. with the declared quotas),
 * plus the public key of target.auth.private_key_file, so the tokens minted with it verify.
 */
export async function builtinConfigOf(
  profile: Profile,
  config: Record<string, unknown> = profile.target.server.config,
): Promise<Record<string, unknown>> {
  const auth = profile.target.auth;
  if (!auth?.private_key_file || 'jwt_jwks' in config) return config;
  return { ...config, jwt_jwks: await publicJwksOf(auth.private_key_file, auth.alg, auth.kid) };
}

/** target.tls read into what a wss:// connect takes; undefined for ws:// or no settings. */
export function tlsOf(profile: Profile): TlsOptions | undefined {
  const t = profile.target.tls;
  if (!t) return undefined;
  const read = (field: string, path: string | undefined) => {
    if (path === undefined) return undefined;
    try {
      return readFileSync(path);
    } catch (e) {
      throw new Error(
        `target.tls.${field} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        { cause: e },
      );
    }
  };
  return {
    ca: read('ca', t.ca),
    cert: read('cert', t.cert),
    key: read('key', t.key),
    rejectUnauthorized: !t.insecure,
  };
}

export function socketOf(
  profile: Profile,
  targetUrl: string,
): { socketUrl: string; headers: Record<string, string> } {
  const socketUrl = buildSocketUrl(targetUrl, {
    vsn: profile.target.vsn,
    params: profile.target.params,
  });
  const headers: Record<string, string> = { ...profile.target.headers };
  if (profile.target.host) headers.host = profile.target.host;
  return { socketUrl, headers };
}
