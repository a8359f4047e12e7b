/**
 * A sweep's steps as step specs: load.steps.0 with the driver set to a value, and how long a
 * step runs when min_samples asked for it to be lengthened (its `scale`). Pure.
 */
import { fmtInt } from '../model/format.js';
import type { Profile, Step, Sweep } from '../profile/schema.js';
import type { SweepDriver } from '../profile/schema/sweep.js';

/** How a sweep chose a step's value (sweep/plan decides; a step's spec records it). */
export type SweepPhase =
  'explicit' | 'grow' | 'retry' | 'bisect' | 'lengthen' | 'step-down' | 'confirm';

const INTEGER_DRIVERS: ReadonlySet<SweepDriver> = new Set([
  'connections',
  'payload_bytes',
  'members',
  'subscribers',
  'rooms',
]);

/**
 * A lengthened step runs at most this many times load.steps.0's duration, unless sweep.max_duration
 * says.
 */
export const DEFAULT_MAX_SCALE = 4;

/** Integer drivers to whole numbers; rates and shares to 3 significant figures. */
export function roundDriver(driver: SweepDriver, v: number): number {
  if (INTEGER_DRIVERS.has(driver)) return Math.max(1, Math.round(v));
  return Number(v.toPrecision(3));
}

export function fmtDriver(driver: SweepDriver, v: number): string {
  return INTEGER_DRIVERS.has(driver) ? fmtInt(v) : String(v);
}

/** The driver's value in a step spec (or the profile default it falls back to). */
export function templateValue(
  profile: Profile,
  template: Step,
  driver: SweepDriver,
): number | undefined {
  switch (driver) {
    case 'connections':
    case 'subscribers':
      return template.connections;
    case 'send_rate':
      return template.send_rate;
    case 'join_rate':
      return template.join_rate ?? profile.load.join_rate;
    case 'payload_bytes':
      return template.payload_bytes ?? profile.load.payload_bytes;
    case 'members':
      return template.members;
    case 'update_share':
      return template.update_share;
    case 'rooms':
      return template.rooms;
    case 'insert_rate':
      return template.insert_rate;
    case 'room_send_rate':
      return template.room_send_rate;
  }
}

/** How a sweep's steps are made from load.steps.0. */
export interface SpecContext {
  /** The join rate load.steps.0 runs at (its own or load.join_rate). */
  baseJoinRate: number;
}

/**
 * How far a step may be lengthened: sweep.max_duration over load.steps.0's duration
 * (default 4×). A join-rate sweep lengthens its ramp (more joins), the others the steady state.
 */
export function maxScaleOf(cfg: Sweep, template: Step): number {
  if (cfg.max_duration === undefined || template.duration <= 0) return DEFAULT_MAX_SCALE;
  return Math.max(1, cfg.max_duration / template.duration);
}

/**
 * load.steps.0 with the driver set to `value`. Members with rooms given keep connections =
 * rooms × members (rooms with members too). A join-rate step keeps its ramp as long as
 * load.steps.0's (connections grow with the rate), so a faster rate is judged over as many
 * seconds. `scale` lengthens the step: its duration, or a join-rate step's ramp.
 */
export function sweepStepSpec(
  template: Step,
  driver: SweepDriver,
  at: { value: number; phase: SweepPhase; scale?: number },
  ctx?: SpecContext,
): Step {
  const { value, phase, scale = 1 } = at;
  const spec: Step = { ...template, label: `${driver} ${fmtDriver(driver, value)} (${phase})` };
  if (driver !== 'join_rate' && scale !== 1) spec.duration = Math.round(template.duration * scale);
  switch (driver) {
    case 'connections':
    case 'subscribers':
      spec.connections = value;
      break;
    case 'send_rate':
      spec.send_rate = value;
      break;
    case 'join_rate': {
      spec.join_rate = value;
      if (ctx) spec.connections = joinRateConnections(template, value, scale, ctx);
      break;
    }
    case 'payload_bytes':
      spec.payload_bytes = value;
      break;
    case 'members':
      spec.members = value;
      if (template.rooms) spec.connections = template.rooms * value;
      break;
    case 'update_share':
      spec.update_share = value;
      break;
    case 'rooms':
      spec.rooms = value;
      if (template.members) spec.connections = template.members * value;
      break;
    case 'insert_rate':
      spec.insert_rate = value;
      break;
    case 'room_send_rate':
      spec.room_send_rate = value;
      break;
  }
  return spec;
}

function joinRateConnections(
  template: Step,
  rate: number,
  scale: number,
  ctx: SpecContext,
): number {
  const rampS = template.connections / ctx.baseJoinRate;
  return Math.max(1, Math.round(rate * rampS * scale));
}

/** The most connections any step of this sweep can ask for, to size the generator up front. */
export function sweepMaxConnections(cfg: Sweep, template: Step, ctx?: SpecContext): number {
  const top = cfg.values ? Math.max(...cfg.values) : cfg.max!;
  if (cfg.driver === 'connections' || cfg.driver === 'subscribers') return Math.ceil(top);
  if (cfg.driver === 'members' && template.rooms) return template.rooms * Math.ceil(top);
  if (cfg.driver === 'rooms' && template.members) return template.members * Math.ceil(top);
  if (cfg.driver === 'join_rate' && ctx)
    return joinRateConnections(template, top, maxScaleOf(cfg, template), ctx);
  return template.connections;
}
