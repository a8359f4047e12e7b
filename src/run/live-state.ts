/**
 * What the run is doing now (step, phase and how long the phase lasts), read by the timeline,
 * the progress line and the health checks once a second.
 */
import { nowMs } from '../measure/clock.js';
import type { TimeseriesPoint } from '../result/timeseries-point.js';

export type Phase = TimeseriesPoint['phase'];

export class LivePhase {
  step = 0;
  phase: Phase = 'ramp';
  phaseStartMs = nowMs();
  phaseLengthS: number | null = null;

  enter(phase: Phase, lengthS: number | null): void {
    this.phase = phase;
    this.phaseStartMs = nowMs();
    this.phaseLengthS = lengthS;
  }
}
