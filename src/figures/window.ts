/** The phases of one step, in epoch ms of the coordinator's clock (measure/clock). */
export interface StepWindow {
  rampStart: number;
  rampEnd: number;
  /** The measured (steady) window is [steadyStart, steadyEnd]. */
  steadyStart: number;
  steadyEnd: number;
  drainEnd: number;
}
