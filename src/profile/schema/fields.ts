/**
 * What every section of the profile schema is built from: the metadata a field carries besides
 * its type (env expansion, secrets, durations), the duration type and the integer kinds.
 */
import { z } from 'zod';
import { DURATION_HINT, parseDurationMs } from '../duration.js';

/**
 * What the loader and the docs read from a field besides its type, attached with zod `.meta()`.
 * Keeping it on the schema means env expansion, redaction and docs/PROFILE.md cannot disagree
 * about which fields carry credentials. (A type alias, not an interface: `.meta()` takes only
 * types assignable to an index signature.)
 */
export type FieldMeta = {
  /**
   * `${ENV_VAR}` references in the string value (or each value of a string map) are expanded at
   * load time.
   */
  env?: boolean;
  /**
   * How the field may carry a credential, hidden as "***" in result.json and error messages:
   * `value` the whole value; `url` the password and apikey/token query parameters of a URL;
   * `keys` the values under credential-like keys (Authorization, apikey, x-api-key, *secret*, ...);
   * `values` every value of a map, its keys kept (a header map: a Cookie or a custom token header
   * is as secret as Authorization), except a `Host` entry, which names the tenant.
   */
  secret?: 'value' | 'url' | 'keys' | 'values';
  /**
   * No value at or under the field is quoted in a message, whatever it looks like: a place
   * where credentials go (the auth map, the database and metrics endpoints), so a typo there
   * (`auth: hunter2`, `database_ur`) is as likely a credential as the field itself.
   */
  unquoted?: boolean;
  /** `duration`: a duration string or seconds, parsed to milliseconds. */
  kind?: 'duration';
};
export const meta = (m: FieldMeta): FieldMeta => m;

/** "20s", "1m30s", "500ms", "2h" or a number of seconds. Parsed to milliseconds. */
export const duration = z
  .union([z.number().nonnegative(), z.string()])
  .transform((v, ctx) => {
    const ms = parseDurationMs(v);
    if (ms === null) {
      ctx.addIssue({
        code: 'custom',
        message: `not a duration: ${JSON.stringify(v)} (${DURATION_HINT})`,
      });
      return z.NEVER;
    }
    return ms;
  })
  .meta(meta({ kind: 'duration' }));

export const positiveInt = z.number().int().positive();
export const nonNegInt = z.number().int().nonnegative();
