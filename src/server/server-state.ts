/**
 * What `/metrics` and the REST broadcast endpoint read of a running server: its counters, its
 * tenants, its database and which process of `--workers` it is. RealtimeServer provides it; the
 * two handlers depend on this narrow view, not on the server class that mounts them.
 */
import type { Stats } from './stats.js';
import type { ServerDb } from './db-types.js';
import type { TenantRegistry } from './tenants.js';

export interface ServerState {
  readonly stats: Stats;
  readonly tenants: TenantRegistry;
  readonly db: ServerDb | null;
  /** Which server process this is (0 alone; a worker's number under `--workers`). */
  readonly node: number;
}
