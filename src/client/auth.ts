/**
 * Tokens for connections: a fixed apikey, one minted per connection with an HS256 secret
 * (jose), or lines of a token file. Tokens never leave this module except in the request.
 */
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';

export interface TokenSpec {
  apikey?: string;
  jwtSecret?: string;
  role: string;
  ttlMs: number;
  tokenFile?: string;
  /** Extra claims for minted tokens, by connection index (e.g. sub per user). */
  claims?: (index: number) => Record<string, unknown>;
}

export class TokenSource {
  private readonly fileTokens: string[] | null;
  private readonly key: Uint8Array | null;
  private shared: Promise<string> | null = null;

  constructor(private readonly spec: TokenSpec) {
    this.fileTokens = spec.tokenFile ? readTokenFile(spec.tokenFile) : null;
    this.key = spec.jwtSecret ? new TextEncoder().encode(spec.jwtSecret) : null;
  }

  get enabled(): boolean {
    return Boolean(this.spec.apikey || this.key || this.fileTokens);
  }

  async tokenFor(index: number): Promise<string | null> {
    if (this.fileTokens) return this.fileTokens[index % this.fileTokens.length];
    if (this.spec.apikey) return this.spec.apikey;
    if (!this.key) return null;
    if (!this.spec.claims) {
      // One token for every connection when nothing differs between them.
      this.shared ??= this.mint({});
      return this.shared;
    }
    return this.mint(this.spec.claims(index));
  }

  private mint(claims: Record<string, unknown>): Promise<string> {
    const nowS = Math.floor(Date.now() / 1000);
    return new SignJWT({ role: this.spec.role, ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + Math.ceil(this.spec.ttlMs / 1000))
      .sign(this.key!);
  }
}

export function readTokenFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`token_file ${path}: ${(e as Error).message}`);
  }
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (lines.length === 0) throw new Error(`token_file ${path}: no tokens in the file`);
  return lines;
}
