/**
 * JWT verification as Supabase Realtime does it (docs/PROTOCOL.md §1.4; `ChannelsAuthorization`
 * and `JwtVerification`): clean the token, peek claims and header, pick a signer from the
 * header (`typ: "JWT"` and an HS* alg against the tenant secret), verify the signature, then
 * `exp > now`, then the required `role` (a string) and `exp` claims. Each failure kind maps to
 * the exact text of a refused connect (docs/PROTOCOL.md §1.5), a join error (§3.2) and a channel
 * shutdown (§3.5).
 *
 * A verified token's claims are cached by token string: every join re-confirms the socket
 * token, and a benchmark opens thousands of sockets with the same token. Expiry is
 * re-evaluated on every use.
 */
import {
  compactVerify,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JSONWebKeySet,
} from 'jose';
import { REASON } from '../protocol/constants.js';

export type TokenFailure =
  | { kind: 'malformed' }
  | { kind: 'signer' }
  | { kind: 'signature' }
  | { kind: 'expired'; secondsAgo: number }
  | { kind: 'missing_claims' }
  | { kind: 'other' };

export type TokenResult =
  { ok: true; claims: Record<string, unknown>; expS: number } | ({ ok: false } & TokenFailure);

const HS_ALGS = new Set(['HS256', 'HS384', 'HS512']);
/**
 * Asymmetric algs Supabase's signing keys use (and their siblings), verified against the tenant's
 * JWKS.
 */
const JWKS_ALGS = new Set([
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'EdDSA',
]);
const CACHE_MAX = 50_000;
const encoder = new TextEncoder();

/** URL-decoded with all whitespace removed (`clean_token`). */
export function cleanToken(raw: string): string {
  let t = raw;
  try {
    t = decodeURIComponent(raw);
  } catch {
    // not percent-encoded; Elixir's URI.decode would raise too, and the JWT parse fails below
  }
  return t.replace(/\s/g, '');
}

export class TokenVerifier {
  private readonly key: Uint8Array;
  private readonly jwks: ReturnType<typeof createLocalJWKSet> | null;
  private readonly verified = new Map<string, Record<string, unknown>>();

  /**
   * `jwks`: the tenant's public keys (Supabase `jwt_jwks`); without it only HS* tokens have a
   * signer.
   */
  constructor(secret: string, jwks?: { keys: Array<Record<string, unknown>> }) {
    this.key = encoder.encode(secret);
    this.jwks = jwks ? createLocalJWKSet(jwks as unknown as JSONWebKeySet) : null;
  }

  async verify(raw: string, nowMs = Date.now()): Promise<TokenResult> {
    const token = cleanToken(raw);
    let claims = this.verified.get(token);
    if (!claims) {
      const checked = await this.verifySignature(token);
      if (!('claims' in checked)) return checked;
      claims = checked.claims;
      if (this.verified.size >= CACHE_MAX) this.verified.clear();
      this.verified.set(token, claims);
    }
    return checkClaims(claims, nowMs);
  }

  private async verifySignature(
    token: string,
  ): Promise<{ claims: Record<string, unknown> } | ({ ok: false } & TokenFailure)> {
    let claims: Record<string, unknown>;
    let header: Record<string, unknown>;
    try {
      claims = decodeJwt(token) as Record<string, unknown>;
      header = decodeProtectedHeader(token) as Record<string, unknown>;
    } catch {
      return { ok: false, kind: 'malformed' };
    }
    // generate_signer: `%{"typ" => "JWT", "alg" => alg}` with an HS* alg uses the tenant secret;
    // with a JWKS configured, an asymmetric alg uses the key the header's `kid` names.
    if (header.typ !== 'JWT' || typeof header.alg !== 'string')
      return { ok: false, kind: 'signer' };
    const asymmetric = JWKS_ALGS.has(header.alg);
    if (!HS_ALGS.has(header.alg) && !(asymmetric && this.jwks))
      return { ok: false, kind: 'signer' };
    try {
      if (asymmetric) await compactVerify(token, this.jwks!, { algorithms: [header.alg] });
      else await compactVerify(token, this.key, { algorithms: [header.alg] });
    } catch (e) {
      // No key in the set for this kid/alg: no signer, as Realtime answers when the JWKS has no
      // match.
      if (asymmetric && (e as { code?: string }).code === 'ERR_JWKS_NO_MATCHING_KEY')
        return { ok: false, kind: 'signer' };
      return { ok: false, kind: 'signature' };
    }
    if (claims.iat !== undefined && typeof claims.iat !== 'number')
      return { ok: false, kind: 'malformed' };
    return { claims };
  }
}

function checkClaims(claims: Record<string, unknown>, nowMs: number): TokenResult {
  const nowS = Math.floor(nowMs / 1000);
  const exp = claims.exp;
  // Joken validates `exp > now` only when the claim is present; decimals are rounded
  // (docs/PROTOCOL.md §1.4).
  if (typeof exp === 'number') {
    const expS = Math.round(exp);
    if (!(expS > nowS)) return { ok: false, kind: 'expired', secondsAgo: nowS - expS };
  }
  if (!('role' in claims) || !('exp' in claims)) return { ok: false, kind: 'missing_claims' };
  // The role names a Postgres role (`set_config('role', ...)`, RLS, Postgres Changes); a
  // non-string one cannot, so the token is refused with the required-claims error rather than
  // carrying a role such as "[object Object]" into the policies.
  if (typeof claims.role !== 'string') return { ok: false, kind: 'missing_claims' };
  // A non-numeric exp passes Elixir's term comparison but fails the join's `is_integer(exp)`.
  if (typeof exp !== 'number') return { ok: false, kind: 'other' };
  return { ok: true, claims, expS: Math.round(exp) };
}

/** HTTP status and `{"error": ...}` text of a refused upgrade (docs/PROTOCOL.md §1.5). */
export function connectRefusal(f: TokenFailure): { status: number; error: string } {
  switch (f.kind) {
    case 'malformed':
      return { status: 401, error: REASON.invalidJwt };
    case 'signer':
      return { status: 401, error: REASON.noSigner };
    case 'signature':
      return { status: 401, error: REASON.badSignature };
    case 'expired':
      return { status: 401, error: REASON.tokenExpired };
    case 'missing_claims':
      return { status: 401, error: REASON.claimsRequired };
    case 'other':
      return { status: 500, error: REASON.connectError };
  }
}

/** `response.reason` of a refused join (docs/PROTOCOL.md §3.2). */
export function joinRefusal(f: TokenFailure): string {
  switch (f.kind) {
    case 'malformed':
      return REASON.joinMalformedJwt;
    case 'signer':
      return REASON.joinNoSigner;
    case 'signature':
      return REASON.joinBadSignature;
    case 'expired':
      return REASON.joinTokenExpired(f.secondsAgo);
    case 'missing_claims':
      return REASON.joinClaimsRequired;
    case 'other':
      return REASON.unknownChannelError;
  }
}

/**
 * `system` message that closes a channel whose token failed a re-check or refresh
 * (docs/PROTOCOL.md §3.5).
 */
export function shutdownMessage(f: TokenFailure): string {
  switch (f.kind) {
    case 'malformed':
      return REASON.invalidJwt;
    case 'signer':
      return REASON.noSigner;
    case 'signature':
      // apply_access_token falls through to `inspect(error)` for this one.
      return ':signature_error';
    case 'expired':
      return REASON.tokenExpiredAgo(f.secondsAgo);
    case 'missing_claims':
      return REASON.claimsRequired;
    case 'other':
      return REASON.unknownChannelError;
  }
}
