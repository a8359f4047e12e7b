/**
 * Tenant lookup by the first label of the request Host (docs/PROTOCOL.md §1.3). Without an
 * explicit tenant list every label maps to the single default tenant, so `127.0.0.1`
 * (tenant "127") and `localhost` work out of the box; with a list, unknown labels are
 * "Tenant not found".
 */
import type { ResolvedTenants } from '../builtin/config.js';
import type { ServerTimings } from './options.js';
import { Tenant } from './tenant.js';

export function tenantIdFromHost(host: string | undefined): string {
  if (!host) return '';
  let h = host.trim();
  // Strip the port; a bracketed IPv6 literal has no DNS label to speak of.
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  if (colon >= 0) h = h.slice(0, colon);
  const dot = h.indexOf('.');
  return dot >= 0 ? h.slice(0, dot) : h;
}

export class TenantRegistry {
  readonly all: Tenant[];
  private readonly byId = new Map<string, Tenant>();

  constructor(
    private readonly resolved: ResolvedTenants,
    timings: ServerTimings,
  ) {
    this.all = resolved.tenants.map((c) => new Tenant(c, timings));
    for (const t of this.all) this.byId.set(t.id, t);
  }

  /** The tenant a Host header selects, or undefined (404 `Tenant not found`). */
  forHost(host: string | undefined): Tenant | undefined {
    if (!this.resolved.explicit) return this.all[0];
    return this.byId.get(tenantIdFromHost(host));
  }

  get(id: string): Tenant | undefined {
    return this.byId.get(id);
  }
}
