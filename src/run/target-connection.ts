/** How generator processes reach the target: the socket URL, headers and token settings. */
import { buildSocketUrl } from '../client/url.js';
import type { TokenConfig } from '../load/ipc.js';
import type { Profile } from '../profile/schema.js';
import { readTokenFile } from '../client/auth.js';
import { registerSecrets } from '../redact/redact.js';
import { BUILTIN_JWT_SECRET } from './target.js';

/** The built-in server signs with its own secret unless the profile brings a key or token. */
export function tokenConfigOf(profile: Profile, builtin: boolean): TokenConfig {
  const auth = profile.target.auth;
  // The tokens in token files are secrets too: hidden wherever they turn up (an error quoting a refused token).
  for (const file of [auth?.token_file, profile.private.user_token_file]) {
    try {
      if (file) registerSecrets(readTokenFile(file));
    } catch {
      /* unreadable: the workers report it */
    }
  }
  return {
    apikey: auth?.apikey,
    jwtSecret: auth?.jwt_secret ?? (builtin && !auth?.apikey && !auth?.token_file ? BUILTIN_JWT_SECRET : undefined),
    role: auth?.role ?? 'anon',
    ttlMs: auth?.token_ttl ?? 3_600_000,
    tokenFile: auth?.token_file,
    userTokenFile: profile.private.user_token_file,
    apikeyIn: auth?.apikey_in ?? 'query',
  };
}

export function socketOf(profile: Profile, targetUrl: string): { socketUrl: string; headers: Record<string, string> } {
  const socketUrl = buildSocketUrl(targetUrl, { vsn: profile.target.vsn, params: profile.target.params });
  const headers: Record<string, string> = { ...profile.target.headers };
  if (profile.target.host) headers.host = profile.target.host;
  return { socketUrl, headers };
}
