/**
 * The dimensions of docs/METHOD.md §7's table: each row's driver (the load a step asked for), the
 * measured figure reported as its capacity, its unit and the resource fit that may bound it.
 */
import type { FitId } from './fit.js';
import { DASH, fmtBytes, fmtInt, fmtRate, floorSig } from './format.js';
import type { StepMetricName } from './metrics.js';

export type CapacityUnit = 'connections' | 'per_s' | 'bytes' | 'members' | 'subscribers';

export interface CapacityDimension {
  /** Row number in docs/METHOD.md §7. */
  no: number;
  id: string;
  label: string;
  scenarios: readonly string[];
  /** The load each step asked for; the knee orders steps by it. */
  driver: StepMetricName;
  /** The measured figure reported as the capacity (equal to the driver on stable steps). */
  value: StepMetricName;
  unit: CapacityUnit;
  fit?: FitId;
}

/** docs/METHOD.md §7, one entry per row. */
export const CAPACITY_DIMENSIONS: readonly CapacityDimension[] = [
  {
    no: 1,
    id: 'public_connections',
    label: 'Public broadcast — concurrent connections',
    scenarios: ['broadcast-public'],
    driver: 'connections_target',
    value: 'connections',
    unit: 'connections',
    fit: 'memory_vs_connections',
  },
  {
    no: 2,
    id: 'private_connections',
    label: 'Private broadcast — concurrent connections',
    scenarios: ['broadcast-private'],
    driver: 'connections_target',
    value: 'connections',
    unit: 'connections',
    fit: 'memory_vs_connections',
  },
  {
    no: 3,
    id: 'public_deliveries',
    label: 'Public broadcast — deliveries/s',
    scenarios: ['broadcast-public'],
    driver: 'expected_per_s',
    value: 'delivered_per_s',
    unit: 'per_s',
    fit: 'cpu_vs_deliveries',
  },
  {
    no: 4,
    id: 'private_sends',
    label: 'Private broadcast — sends/s',
    scenarios: ['broadcast-private'],
    driver: 'send_rate',
    value: 'sent_per_s',
    unit: 'per_s',
    fit: 'cpu_vs_sends',
  },
  {
    no: 5,
    id: 'private_deliveries',
    label: 'Private broadcast — deliveries/s',
    scenarios: ['broadcast-private'],
    driver: 'expected_per_s',
    value: 'delivered_per_s',
    unit: 'per_s',
    fit: 'cpu_vs_deliveries',
  },
  {
    no: 6,
    id: 'write_only_sends',
    label: 'Write only (no receivers) — acknowledged sends/s',
    scenarios: ['write-only'],
    driver: 'send_rate',
    value: 'acked_per_s',
    unit: 'per_s',
    fit: 'cpu_vs_sends',
  },
  {
    no: 7,
    id: 'join_rate',
    label: 'Connection / channel join rate',
    scenarios: ['join-rate'],
    driver: 'join_rate',
    value: 'joins_per_s',
    unit: 'per_s',
  },
  {
    no: 8,
    id: 'message_size',
    label: 'Message size',
    scenarios: ['payload-size'],
    driver: 'payload_bytes',
    value: 'payload_bytes',
    unit: 'bytes',
  },
  {
    no: 9,
    id: 'cdc_subscribers',
    label: 'CDC subscriptions per tenant',
    scenarios: ['postgres-changes'],
    driver: 'cdc_subscribers',
    value: 'cdc_subscribers',
    unit: 'subscribers',
  },
  {
    no: 10,
    id: 'cdc_changes',
    label: 'CDC — changes/s',
    scenarios: ['postgres-changes'],
    driver: 'cdc_changes_per_s',
    value: 'cdc_changes_per_s',
    unit: 'per_s',
  },
  {
    no: 11,
    id: 'presence_members',
    label: 'Presence — members per topic',
    scenarios: ['presence'],
    driver: 'presence_members',
    value: 'presence_members',
    unit: 'members',
  },
  {
    no: 12,
    id: 'presence_deliveries',
    label: 'Presence — deliveries/s',
    scenarios: ['presence'],
    driver: 'presence_load',
    value: 'presence_deliveries_per_s',
    unit: 'per_s',
  },
];

/** A capacity figure; `floor` rounds down to 3 significant figures for the value column. */
export function formatCapacityValue(
  value: number | null,
  unit: CapacityUnit,
  floor = false,
): string {
  if (value === null) return DASH;
  const v = floor && unit !== 'bytes' ? floorSig(value, 3) : value;
  switch (unit) {
    case 'per_s':
      return fmtRate(v);
    case 'bytes':
      return fmtBytes(v);
    default:
      return fmtInt(v);
  }
}
