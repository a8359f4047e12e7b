import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEV_JWT_SECRET,
  firstTenantLimits,
  loadServerConfigFile,
  parseServerConfig,
  resolveTenants,
} from '../../src/builtin/config.js';
import { tempDir } from '../support/temp-dir.js';

describe('tenant config', () => {
  it('defaults to one tenant without tenant-wide rate quotas', () => {
    const r = resolveTenants(undefined, undefined);
    expect(r.explicit).toBe(false);
    expect(r.tenants).toHaveLength(1);
    expect(r.tenants[0]).toMatchObject({
      jwt_secret: DEV_JWT_SECRET,
      max_events_per_second: null,
      max_channels_per_client: 100,
      max_payload_size_in_kb: 3000,
    });
  });

  it('applies Supabase defaults on request, then top-level defaults, then per-tenant values', () => {
    const r = resolveTenants(
      parseServerConfig({
        supabase_defaults: true,
        max_events_per_second: 500,
        tenants: [{ id: 'a' }, { id: 'b', max_events_per_second: 7, jwt_secret: 's' }],
      }),
      'flag-secret',
    );
    expect(r.explicit).toBe(true);
    expect(r.tenants[0]).toMatchObject({
      id: 'a',
      max_concurrent_users: 200,
      max_events_per_second: 500,
      jwt_secret: 'flag-secret',
    });
    expect(r.tenants[1]).toMatchObject({ id: 'b', max_events_per_second: 7, jwt_secret: 's' });
  });

  it('rejects unknown keys with the path', () => {
    expect(() => parseServerConfig({ max_events_per_secnd: 1 })).toThrow(ConfigError);
    expect(() => parseServerConfig({ tenants: [{ id: 'a', db_pool: 0 }] })).toThrow(
      /tenants\.0\.db_pool/,
    );
    expect(() => parseServerConfig({ tenants: [{ id: 'a.b' }] })).toThrow(/Host label/);
  });

  it('reads YAML and JSON files', () => {
    const dir = tempDir('rtcap-cfg-');
    writeFileSync(join(dir, 't.yaml'), 'max_joins_per_second: 5\ntenants:\n  - id: realtime-dev\n');
    writeFileSync(join(dir, 't.json'), '{"max_joins_per_second": 6}');
    writeFileSync(join(dir, 'bad.yaml'), 'a: [');
    expect(loadServerConfigFile(join(dir, 't.yaml'))).toMatchObject({
      max_joins_per_second: 5,
      tenants: [{ id: 'realtime-dev' }],
    });
    expect(loadServerConfigFile(join(dir, 't.json'))).toEqual({ max_joins_per_second: 6 });
    expect(() => loadServerConfigFile(join(dir, 'bad.yaml'))).toThrow(ConfigError);
    expect(() => loadServerConfigFile(join(dir, 'missing.yaml'))).toThrow(ConfigError);
  });
});

describe('firstTenantLimits', () => {
  it('gives what the server enforces on its first tenant, or null for a config it refuses', () => {
    expect(firstTenantLimits(undefined)).toMatchObject({
      db_pool: 1,
      max_presence_events_per_second: null,
    });
    expect(firstTenantLimits({ supabase_defaults: true })).toMatchObject({
      max_presence_events_per_second: 1000,
      max_joins_per_second: 100,
    });
    expect(
      firstTenantLimits({ db_pool: 3, tenants: [{ id: 'a', db_pool: 5 }, { id: 'b' }] })?.db_pool,
    ).toBe(5);
    expect(firstTenantLimits({ db_pool: 0 })).toBeNull();
    expect(firstTenantLimits({ no_such_setting: 1 })).toBeNull();
  });
});
