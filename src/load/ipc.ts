/**
 * Messages between the coordinator and generator processes (child_process IPC with the
 * 'advanced' serialization, so typed arrays cross as they are).
 */
import type { Profile } from '../profile/schema.js';
import type { ErrorClass } from '../report/result.js';
import type { MemberInterval } from '../measure/membership.js';
import type { HealthSample } from '../measure/health.js';

export interface TokenConfig {
  apikey?: string;
  jwtSecret?: string;
  role: string;
  ttlMs: number;
  tokenFile?: string;
  /** query: `apikey` parameter; header: `x-api-key`. */
  apikeyIn: 'query' | 'header';
}

export type ToWorker =
  | {
      type: 'init';
      workerIndex: number;
      workers: number;
      profile: Profile;
      /** Socket URL without the token. */
      url: string;
      headers: Record<string, string>;
      sourceAddresses: string[];
      tokens: TokenConfig;
    }
  | { type: 'ramp'; step: number; fromConn: number; toConn: number; startMs: number }
  | { type: 'shrink'; step: number; toConn: number }
  | { type: 'send'; step: number; startMs: number }
  | { type: 'collect'; step: number }
  | { type: 'stop' };

export interface SecondStats {
  type: 'second';
  worker: number;
  /** Epoch second this covers (the second that just ended). */
  t: number;
  open: number;
  joined: number;
  joins: number;
  sent: number;
  received: number;
  bytes: number;
  errors: number;
  disconnects: number;
  /** Delivery latency of this second's receipts (compressed HDR). */
  histogram: string;
  health: HealthSample;
  /** This second's errors by reason. */
  errorReasons: Record<string, number>;
}

export interface StepCollected {
  type: 'collected';
  worker: number;
  step: number;
  receipts: {
    streams: Array<{ stream: number; count: Uint32Array; first: Float64Array; last: Float64Array }>;
    received: number;
    duplicates: number;
    unexpected: number;
    stale: number;
    deliveryHistogram: string;
  };
  sends: Array<{ stream: number; sched: Float64Array; actual: Float64Array }>;
  sendStats: { scheduled: number; sent: number; failed: number; late: number; unsent: number };
  membership: Record<string, MemberInterval[]>;
  connections: { opened: number; joined: number; failed: number; disconnected: number; openAtEnd: number; joinedAtEnd: number; lateJoins: number; scheduledJoins: number };
  joinLatencyHistogram: string;
  errors: Record<string, number>;
  errorClasses: Record<ErrorClass, number>;
  acks: { ok: number; errors: number };
  /** Event-loop delay p99 over the steady window (since the send phase began). */
  lagP99Ms: number | null;
}

export type FromWorker =
  | { type: 'ready'; worker: number }
  | SecondStats
  | { type: 'rampDone'; worker: number; step: number; joined: number; failed: number; errors: Record<string, number> }
  | { type: 'sendDone'; worker: number; step: number }
  | StepCollected
  | { type: 'fatal'; worker: number; message: string };
