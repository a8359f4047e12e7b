/**
 * Tokens for connections: a fixed apikey, one minted per connection with an HS256 secret or
 * an asymmetric private key (ES256, RS256…, with a `kid`, like Supabase's signing keys; jose),
 * or lines of a token file. Tokens never leave this module except in the request.
 */
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CryptoKey } from 'jose';

/**
 * jose, loaded when a token is first minted: its module tree costs every process start-up, and most
 * runs mint none.
 */
const loadJose = () => import('jose');

/**
 * Where a run's tokens come from (target.auth, private.user_token_file): the one description, from
 * the profile (run/target-connection) through the generator's init message (generator/ipc) to each
 * TokenSource.
 */
export interface TokenConfig {
  apikey?: string;
  jwtSecret?: string;
  role: string;
  ttlMs: number;
  tokenFile?: string;
  /** PEM (PKCS#8) private key: minted tokens are signed with `alg` and carry `kid`. */
  privateKeyFile?: string;
  alg?: string;
  kid?: string;
  /** Per-user tokens (private channels), one per line, instead of minting them. */
  userTokenFile?: string;
  /** query: `apikey` parameter; header: `x-api-key`. */
  apikeyIn: 'query' | 'header';
}

/** What one TokenSource reads of a TokenConfig, with extra claims for minted tokens. */
export type TokenSpec = Omit<TokenConfig, 'userTokenFile' | 'apikeyIn'> & {
  /** Extra claims for minted tokens, by connection index (e.g. sub per user). */
  claims?: (index: number) => Record<string, unknown>;
};

/**
 * Per-user tokens (private channels, Postgres Changes' row-level security): minted with the run's
 * key as role `authenticated` with the plan's claims, or read from the user token file.
 */
export function userTokenSource(
  config: TokenConfig,
  claims: (index: number) => Record<string, unknown>,
): TokenSource {
  return new TokenSource({
    jwtSecret: config.jwtSecret,
    privateKeyFile: config.privateKeyFile,
    alg: config.alg,
    kid: config.kid,
    tokenFile: config.userTokenFile,
    role: 'authenticated',
    ttlMs: config.ttlMs,
    claims,
  });
}

export class TokenSource {
  private readonly fileTokens: string[] | null;
  private readonly key: Uint8Array | Promise<CryptoKey> | null;
  private readonly alg: string;
  private shared: { token: Promise<string>; expMs: number } | null = null;

  constructor(private readonly spec: TokenSpec) {
    this.fileTokens = spec.tokenFile ? readTokenFile(spec.tokenFile) : null;
    this.alg = spec.privateKeyFile ? (spec.alg ?? 'ES256') : 'HS256';
    this.key = spec.privateKeyFile
      ? importKey(readKeyFile(spec.privateKeyFile), this.alg)
      : spec.jwtSecret
        ? new TextEncoder().encode(spec.jwtSecret)
        : null;
    // An unhandled rejection must not kill the process before the first token is asked for.
    if (this.key instanceof Promise) this.key.catch(() => undefined);
  }

  get enabled(): boolean {
    return Boolean(this.spec.apikey || this.key || this.fileTokens);
  }

  /** Whether tokens are minted here (and so can be refreshed before they expire). */
  get mints(): boolean {
    return !this.fileTokens && !this.spec.apikey && this.key !== null;
  }

  /**
   * Loads what minting needs (jose, the key) now, so a generator process pays for it before its
   * ramp instead of at its first join: 34 processes loading jose's module tree at the ramp's
   * first second held their first joins back by seconds. Nothing when no token is minted here.
   */
  async prepare(): Promise<void> {
    if (!this.mints) return;
    await Promise.all([loadJose(), Promise.resolve(this.key).catch(() => undefined)]);
  }

  async tokenFor(index: number): Promise<string | null> {
    if (this.fileTokens) return this.fileTokens[index % this.fileTokens.length];
    if (this.spec.apikey) return this.spec.apikey;
    if (!this.key) return null;
    if (!this.spec.claims) {
      // One token for every connection when nothing differs between them, renewed once it
      // is half way to expiry, so a connection opened late never gets a nearly expired one.
      const now = Date.now();
      if (!this.shared || now > this.shared.expMs - this.spec.ttlMs / 2)
        this.shared = { token: this.mint({}), expMs: now + this.spec.ttlMs };
      return this.shared.token;
    }
    return this.mint(this.spec.claims(index));
  }

  private async mint(claims: Record<string, unknown>): Promise<string> {
    const nowS = Math.floor(Date.now() / 1000);
    const key = await this.key!;
    const { SignJWT } = await loadJose();
    return new SignJWT({ role: this.spec.role, ...claims })
      .setProtectedHeader({
        alg: this.alg,
        typ: 'JWT',
        ...(this.spec.kid ? { kid: this.spec.kid } : {}),
      })
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + Math.ceil(this.spec.ttlMs / 1000))
      .sign(key);
  }
}

/** The public JWKS of a private key file (for the built-in server to verify what rtcap mints). */
export async function publicJwksOf(
  privateKeyFile: string,
  alg: string,
  kid?: string,
): Promise<{ keys: Array<Record<string, unknown>> }> {
  const { exportJWK } = await loadJose();
  const jwk = await exportJWK(createPublicKey(readKeyFile(privateKeyFile)));
  return { keys: [{ ...jwk, alg, use: 'sig', ...(kid ? { kid } : {}) }] };
}

async function importKey(pem: string, alg: string): Promise<CryptoKey> {
  return (await loadJose()).importPKCS8(pem, alg);
}

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(
      `private_key_file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { cause: e },
    );
  }
}

export function readTokenFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`token_file ${path}: ${(e as Error).message}`, { cause: e });
  }
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  if (lines.length === 0) throw new Error(`token_file ${path}: no tokens in the file`);
  return lines;
}
