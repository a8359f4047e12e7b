/**
 * Errors the realtime server maps to client-visible outcomes.
 *
 * - AuthorizationError: `increase_connection_pool` becomes the join reason
 *   `IncreaseConnectionPool: Please increase your connection pool size` (docs/PROTOCOL.md §6.4);
 *   `db_error` is a policy query that failed (docs/PROTOCOL.md §3.2 "Realtime was unable to
 *   connect to the project database").
 * - SubscriptionError: `.message` is the exact `postgres_changes` system-message text of
 *   docs/PROTOCOL.md §3.3; `.retryable` says whether the channel retries after 5–10 s (DB
 *   trouble) or not (malformed params).
 */

export type AuthorizationErrorCode = 'increase_connection_pool' | 'db_error';

export class AuthorizationError extends Error {
  readonly code: AuthorizationErrorCode;
  constructor(code: AuthorizationErrorCode, message?: string, options?: { cause?: unknown }) {
    super(message ?? code, options);
    this.name = 'AuthorizationError';
    this.code = code;
  }
}

export class SubscriptionError extends Error {
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SubscriptionError';
    this.retryable = retryable;
  }
}

/**
 * The system-message text when the subscription pool's timeout counter is tripped
 * (docs/PROTOCOL.md §6.4).
 */
export const TOO_MANY_DB_TIMEOUTS = '{:error, "Too many database timeouts"}';

/** A pool checkout that waited longer than the queue target (DBConnection `queue_timeout`). */
export class PoolTimeoutError extends Error {
  constructor(waitedMs: number) {
    super(`pool checkout timed out after ${waitedMs} ms`);
    this.name = 'PoolTimeoutError';
  }
}

/**
 * SQLSTATE → condition name, for Postgrex-style `ERROR 22P02 (invalid_text_representation) ...`.
 */
const CONDITIONS: Record<string, string> = {
  P0001: 'raise_exception',
  '22P02': 'invalid_text_representation',
  '22003': 'numeric_value_out_of_range',
  '22007': 'invalid_datetime_format',
  '22008': 'datetime_field_overflow',
  '22023': 'invalid_parameter_value',
  '23502': 'not_null_violation',
  '23505': 'unique_violation',
  '23514': 'check_violation',
  '42501': 'insufficient_privilege',
  '42703': 'undefined_column',
  '42704': 'undefined_object',
  '42P01': 'undefined_table',
  '42883': 'undefined_function',
  '3F000': 'invalid_schema_name',
  '57014': 'query_canceled',
};

/** `Exception.message/1` of a Postgrex.Error, as Supabase puts it into system messages. */
export function postgrexMessage(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const msg = typeof err?.message === 'string' ? err.message : String(e);
  if (typeof err?.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code)) {
    const name = CONDITIONS[err.code];
    return name ? `ERROR ${err.code} (${name}) ${msg}` : `ERROR ${err.code} ${msg}`;
  }
  return msg;
}

/** Connection-level failures (the Elixir `{:exit, _}` cases): the connection must be discarded. */
export function isConnectionFailure(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown };
  if (typeof err?.code === 'string' && /^(ECONN|EPIPE|ETIMEDOUT|57P0[1-3]|08)/.test(err.code))
    return true;
  const msg = typeof err?.message === 'string' ? err.message : '';
  return /Connection terminated|Query read timeout|Client was closed|not queryable|connection.*ended/i.test(
    msg,
  );
}
