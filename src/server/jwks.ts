/**
 * `rtcap serve --jwks FILE|URL`: the public keys asymmetric tokens are verified with, as a
 * Supabase project publishes them (https://<ref>.supabase.co/auth/v1/.well-known/jwks.json).
 * Read once at start; only public keys are accepted, so a private key given by mistake is
 * refused rather than loaded.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, type Jwks } from '../builtin/config.js';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

export async function loadJwks(source: string): Promise<Jwks> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    let res: Response;
    try {
      res = await fetch(source, { signal: AbortSignal.timeout(10_000) });
    } catch (e) {
      throw new ConfigError(`--jwks ${source}: ${(e as Error).message}`);
    }
    if (!res.ok) throw new ConfigError(`--jwks ${source}: HTTP ${res.status}`);
    text = await res.text();
  } else {
    try {
      text = readFileSync(source, 'utf8');
    } catch (e) {
      throw new ConfigError(
        `--jwks ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }
  return parseJwks(text, source);
}

export function parseJwks(text: string, source: string): Jwks {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`--jwks ${source}: not JSON (${(e as Error).message})`);
  }
  const keys = (raw as { keys?: unknown })?.keys;
  if (
    !Array.isArray(keys) ||
    keys.length === 0 ||
    !keys.every(
      (k) => k && typeof k === 'object' && typeof (k as { kty?: unknown }).kty === 'string',
    )
  ) {
    throw new ConfigError(`--jwks ${source}: expected {"keys": [{"kty": …}, …]}`);
  }
  for (const [i, k] of (keys as Array<Record<string, unknown>>).entries()) {
    const secret = PRIVATE_MEMBERS.filter((m) => m in k);
    if (secret.length)
      throw new ConfigError(
        `--jwks ${source}: keys[${i}] holds private or symmetric key material (${secret.join(', ')}); give the public keys only`,
      );
  }
  return { keys: keys as Array<Record<string, unknown>> };
}
