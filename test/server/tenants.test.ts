import { describe, expect, it } from 'vitest';
import { resolveTenants } from '../../src/builtin/config.js';
import { DEFAULT_TIMINGS } from '../../src/server/options.js';
import { TenantRegistry, tenantIdFromHost } from '../../src/server/tenants.js';

describe('tenant from Host (§1.3)', () => {
  it('takes the first DNS label, without the port', () => {
    expect(tenantIdFromHost('abc123.supabase.co')).toBe('abc123');
    expect(tenantIdFromHost('realtime-dev.localhost:4000')).toBe('realtime-dev');
    expect(tenantIdFromHost('localhost')).toBe('localhost');
    expect(tenantIdFromHost('127.0.0.1:4000')).toBe('127');
    expect(tenantIdFromHost(undefined)).toBe('');
  });

  it('maps every host to the default tenant unless tenants are listed', () => {
    const open = new TenantRegistry(resolveTenants(undefined, undefined), DEFAULT_TIMINGS);
    expect(open.forHost('127.0.0.1:4000')?.id).toBe('realtime-dev');
    expect(open.forHost('anything.example')?.id).toBe('realtime-dev');
    const listed = new TenantRegistry(
      resolveTenants({ tenants: [{ id: 'acme' }] }, undefined),
      DEFAULT_TIMINGS,
    );
    expect(listed.forHost('acme.local:4000')?.id).toBe('acme');
    expect(listed.forHost('127.0.0.1:4000')).toBeUndefined();
  });
});
