/**
 * The built-in server's tenant configuration (`--config tenant.yaml`, quota flags, a profile's
 * `target.server.config`) and its development secret: what `rtcap serve` enforces and what
 * `rtcap run` and a run's figures read of it, one definition for both programs. One zod schema
 * is the single source of the config file's shape and error messages (docs/ARCHITECTURE.md
 * "Code rules").
 *
 * Quota semantics are docs/PROTOCOL.md §8. The built-in server's *defaults* differ from a
 * fresh Supabase tenant on purpose: tenant-wide rate quotas (users, joins/s, events/s,
 * presence events/s) and the per-channel client presence window are off unless
 * configured, because `rtcap serve` is the bed capacity is measured on and Supabase's
 * defaults (200 users, 100 events/s) would cap every step. `--supabase-defaults` (or
 * `supabase_defaults: true` in the config) restores the values a new Supabase tenant has.
 * Per-client limits that cannot cap a capacity run keep Supabase's values.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/**
 * The Supabase self-hosted development secret (docs/PROTOCOL.md §1.3): what the built-in server
 * verifies tokens with unless given another, and what rtcap signs with against it.
 */
export const DEV_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
export const DEFAULT_TENANT_ID = 'realtime-dev';

/** Limits of one tenant; `null` means not enforced. */
export interface TenantLimits {
  max_concurrent_users: number | null;
  max_joins_per_second: number | null;
  max_events_per_second: number | null;
  max_presence_events_per_second: number | null;
  max_channels_per_client: number | null;
  max_payload_size_in_kb: number | null;
  max_client_presence_events_per_window: number | null;
  client_presence_window_ms: number;
  db_pool: number;
  subs_pool_size: number;
  private_only: boolean;
  suspended: boolean;
  presence_enabled: boolean;
}

export interface TenantConfig extends TenantLimits {
  id: string;
  jwt_secret: string;
  /**
   * Public keys for asymmetric tokens (RSA, EC or EdDSA, chosen by `kid`): Supabase's `jwt_jwks`.
   */
  jwt_jwks?: Jwks;
}

/** A JSON Web Key Set (RFC 7517): what Supabase publishes at /auth/v1/.well-known/jwks.json. */
export interface Jwks {
  keys: Array<Record<string, unknown>>;
}

const jwksSchema = z
  .object({ keys: z.array(z.record(z.string(), z.unknown())).min(1) })
  .describe('JSON Web Key Set: {keys: [...]}');

/** What `rtcap serve` enforces when nothing is configured (see the header comment). */
export const BENCH_DEFAULT_LIMITS: TenantLimits = {
  max_concurrent_users: null,
  max_joins_per_second: null,
  max_events_per_second: null,
  max_presence_events_per_second: null,
  max_channels_per_client: 100,
  max_payload_size_in_kb: 3000,
  max_client_presence_events_per_window: null,
  client_presence_window_ms: 30_000,
  db_pool: 1,
  subs_pool_size: 1,
  private_only: false,
  suspended: false,
  presence_enabled: false,
};

/** A new Supabase tenant's values (docs/PROTOCOL.md §8.2, §5.1). */
export const SUPABASE_DEFAULT_LIMITS: TenantLimits = {
  ...BENCH_DEFAULT_LIMITS,
  max_concurrent_users: 200,
  max_joins_per_second: 100,
  max_events_per_second: 100,
  max_presence_events_per_second: 1000,
  max_client_presence_events_per_window: 5,
};

const limit = z.number().positive().nullable();
const limitsShape = {
  max_concurrent_users: limit,
  max_joins_per_second: limit,
  max_events_per_second: limit,
  max_presence_events_per_second: limit,
  max_channels_per_client: limit,
  max_payload_size_in_kb: limit,
  max_client_presence_events_per_window: limit,
  client_presence_window_ms: z.number().int().positive(),
  db_pool: z.number().int().positive(),
  subs_pool_size: z.number().int().positive(),
  private_only: z.boolean(),
  suspended: z.boolean(),
  presence_enabled: z.boolean(),
};
const partialLimits = z.object(limitsShape).partial();

const tenantEntrySchema = partialLimits
  .extend({
    id: z
      .string()
      .min(1)
      .regex(/^[^.]+$/, 'a tenant id is one Host label (no dots)'),
    jwt_secret: z.string().min(1).optional(),
    jwt_jwks: jwksSchema.optional(),
  })
  .strict();

/** `--config FILE` / `target.server.config`: `{tenants?: [...], ...defaults}`. */
export const serverConfigSchema = partialLimits
  .extend({
    supabase_defaults: z.boolean().optional(),
    jwt_secret: z.string().min(1).optional(),
    jwt_jwks: jwksSchema.optional(),
    tenants: z.array(tenantEntrySchema).optional(),
  })
  .strict();
export type ServerConfigFile = z.infer<typeof serverConfigSchema>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function parseServerConfig(raw: unknown, source = 'config'): ServerConfigFile {
  const r = serverConfigSchema.safeParse(raw ?? {});
  if (!r.success) {
    const first = r.error.issues[0];
    throw new ConfigError(`${source}: ${first.path.join('.') || '(root)'}: ${first.message}`);
  }
  return r.data;
}

/** Reads YAML or JSON (JSON is YAML). */
export function loadServerConfigFile(path: string): ServerConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`${path}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new ConfigError(`${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  return parseServerConfig(raw, path);
}

export interface ResolvedTenants {
  /**
   * Explicit tenant list: unknown Host labels get 404. Absent: every label maps to the default
   * tenant.
   */
  explicit: boolean;
  tenants: TenantConfig[];
}

export function resolveTenants(
  config: ServerConfigFile | undefined,
  jwtSecret: string | undefined,
): ResolvedTenants {
  const cfg = config ?? {};
  const base: TenantLimits = {
    ...(cfg.supabase_defaults ? SUPABASE_DEFAULT_LIMITS : BENCH_DEFAULT_LIMITS),
  };
  const {
    tenants,
    supabase_defaults: _s,
    jwt_secret: cfgSecret,
    jwt_jwks: jwks,
    ...defaults
  } = cfg;
  const merged: TenantLimits = { ...base, ...stripUndefined(defaults) };
  const secret = jwtSecret ?? cfgSecret ?? DEV_JWT_SECRET;
  if (!tenants || tenants.length === 0) {
    return {
      explicit: false,
      tenants: [
        {
          ...merged,
          id: DEFAULT_TENANT_ID,
          jwt_secret: secret,
          ...(jwks ? { jwt_jwks: jwks } : {}),
        },
      ],
    };
  }
  return {
    explicit: true,
    tenants: tenants.map(({ id, jwt_secret, jwt_jwks, ...own }) => {
      const keys = jwt_jwks ?? jwks;
      return {
        ...merged,
        ...stripUndefined(own),
        id,
        jwt_secret: jwt_secret ?? secret,
        ...(keys ? { jwt_jwks: keys } : {}),
      };
    }),
  };
}

/**
 * The limits the built-in server enforces on its first tenant (the one whose db_pool and
 * subs_pool_size size the database pools) under a `--config` file or a profile's
 * `target.server.config`, resolved as `rtcap serve` resolves it; null when the server would
 * refuse the config. For readers outside the server (a run's figures), so that none restates a
 * default.
 */
export function firstTenantLimits(config: unknown): TenantLimits | null {
  const parsed = serverConfigSchema.safeParse(config ?? {});
  if (!parsed.success) return null;
  return resolveTenants(parsed.data, undefined).tenants[0];
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o))
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
