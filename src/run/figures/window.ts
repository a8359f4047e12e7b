/** The phases of one step, in epoch ms of the coordinator's clock (measure/clock). */
export interface StepWindow {
  rampStart: number;
  rampEnd: number;
  /** The measured (steady) window is [steadyStart, steadyEnd]. */
  steadyStart: number;
  steadyEnd: number;
  drainEnd: number;
}

/** Length of the steady window in seconds (never 0, so rates stay finite). */
export function steadySeconds(w: StepWindow): number {
  return Math.max(0.001, (w.steadyEnd - w.steadyStart) / 1000);
}

