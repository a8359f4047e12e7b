/** What every quota check takes, and the shape of a rate quota's load. */
import type { Quotas } from '../../profile/schema.js';
import type { QuotaTarget } from '../../client/qconn.js';
import type { Ledger } from '../ledger.js';
import type { QuotaName } from '../../result/quotas.js';

export interface QuotaCheckOptions {
  target: QuotaTarget;
  quotas: Quotas;
  log: (line: string) => void;
  signal?: AbortSignal;
}

/**
 * One rate quota's load: `act` offers one unit, which the target counts as `eventsPerAct`
 * events, and says whether it was made: false when the driver could not (no idle socket, its
 * channel closed). checkRate counts both, so no act is ever dropped silently and the offered
 * rate of every phase is measured.
 */
export interface RateDriver {
  quota: QuotaName;
  eventsPerAct: number;
  ledger: Ledger;
  start(): Promise<void>;
  act(k: number): boolean;
}

/** Joins paced under the join-rate quota when one is declared, so a count check never trips it. */
export function joinPaceMs(q: Quotas): number {
  return q.max_joins_per_second ? 2000 / q.max_joins_per_second : 0;
}
