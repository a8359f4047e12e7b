/**
 * The tokens of one generator process: the shared source (target.auth) and the per-user one
 * (private channels: claims from the plan), and the renewal of minted tokens on joined
 * channels at half their lifetime by an `access_token` push (generator/token-refresh says when
 * and why). Tokens from a file or a fixed apikey are never renewed.
 */
import { TokenSource, userTokenSource, type TokenConfig } from '../client/auth.js';
import type { Connection } from '../client/connection.js';
import { nowMs } from '../measure/clock.js';
import { EV } from '../protocol/constants.js';
import { jwtExpiryMs, TokenRefreshSchedule } from './token-refresh.js';

/** Token renewals per call at most: a ramp's worth of channels due together is spread out. */
export const REFRESH_BATCH = 500;
/** When a token source had nothing newer yet, the channel asks again this much later. */
export const REFRESH_RETRY_MS = 1_000;

/** What renewal needs of a connection (a fake one in unit tests). */
export type RenewedConnection = Pick<Connection, 'index' | 'push'>;

/** The tokens a channel joined with, and whether it still is a member. */
export interface TokenHolder {
  topic: string;
  token: string | null;
  userToken: string | null;
  leftAtMs: number;
}

export class TokenRenewal<C extends RenewedConnection> {
  readonly tokens: TokenSource;
  /** Per-user tokens (private channels): minted with the same key, claims from the plan. */
  readonly userTokens: TokenSource;
  /** Null when no token is minted here (nothing to renew). */
  private readonly schedule: TokenRefreshSchedule<C> | null;

  constructor(config: TokenConfig, userClaimsOf: (index: number) => Record<string, unknown>) {
    this.tokens = new TokenSource(config);
    this.userTokens = userTokenSource(config, userClaimsOf);
    const mints = this.tokens.mints || this.userTokens.mints;
    this.schedule = mints ? new TokenRefreshSchedule<C>(config.ttlMs) : null;
  }

  /**
   * Loads what minting needs before the first token is asked for (TokenSource.prepare); never
   * rejects: a failure shows again, named, when a token is minted.
   */
  async prepare(): Promise<void> {
    await Promise.all([this.tokens.prepare(), this.userTokens.prepare()]).catch(() => undefined);
  }

  /** Channels whose token renewal is pending. */
  get tracked(): number {
    return this.schedule?.size ?? 0;
  }

  /** The shared token and (when the channel has user claims) the per-user one of `index`. */
  tokensFor(index: number, wantsUserToken: boolean): Promise<[string | null, string | null]> {
    const shared = this.tokens.tokenFor(index);
    const user = wantsUserToken && this.userTokens.enabled ? this.userTokens.tokenFor(index) : null;
    return Promise.all([shared, user]);
  }

  /** The source of the token a channel joined with: the per-user one if it has one. */
  private sourceOf(m: TokenHolder): TokenSource {
    return m.userToken ? this.userTokens : this.tokens;
  }

  /** Schedules the renewal of a joined channel's token, when it was minted here. */
  track(c: C, m: TokenHolder): void {
    const token = m.userToken ?? m.token;
    if (!this.schedule || !token || !this.sourceOf(m).mints) return;
    const expMs = jwtExpiryMs(token);
    if (expMs !== null) this.schedule.track(c, expMs);
  }

  untrack(c: C): void {
    this.schedule?.untrack(c);
  }

  /**
   * Renews the tokens due at `now`: a fresh one from the channel's source, sent as an
   * `access_token` push (no reply); a source with nothing newer yet is asked again later.
   */
  renewDue(
    now: number,
    holderOf: (c: C) => TokenHolder | undefined,
    stopped: () => boolean,
    onError: (e: Error) => void,
  ): void {
    if (!this.schedule) return;
    for (const c of this.schedule.takeDue(now, REFRESH_BATCH)) {
      const m = holderOf(c);
      if (!m || m.leftAtMs !== Infinity) continue;
      const old = m.userToken ?? m.token;
      this.sourceOf(m)
        .tokenFor(c.index)
        .then((token) => {
          if (!token || stopped() || m.leftAtMs !== Infinity) return;
          if (token === old) return this.schedule?.retryAt(c, nowMs() + REFRESH_RETRY_MS);
          if (m.userToken) m.userToken = token;
          else m.token = token;
          if (c.push(m.topic, EV.accessToken, { access_token: token }, false)) this.track(c, m);
        }, onError);
    }
  }
}
