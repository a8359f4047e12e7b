/** Seconds of a step's steady window (at least a millisecond, so rates never divide by zero). */
export function steadySeconds(w: { steadyStart: number; steadyEnd: number }): number {
  return Math.max(0.001, (w.steadyEnd - w.steadyStart) / 1000);
}
