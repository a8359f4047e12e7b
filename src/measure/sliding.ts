/**
 * Sliding means over the last N seconds, as seed 002's method averages its
 * rate figures (60 s sliding means).
 * Fed one value per second; the mean covers the seconds seen so far until the window fills.
 */
export class SlidingMean {
  private readonly values: number[] = [];
  private sum = 0;
  constructor(readonly windowSeconds = 60) {}

  push(value: number): number {
    this.values.push(value);
    this.sum += value;
    if (this.values.length > this.windowSeconds) this.sum -= this.values.shift()!;
    return this.mean();
  }

  mean(): number {
    return this.values.length === 0 ? 0 : this.sum / this.values.length;
  }

  get filled(): boolean {
    return this.values.length >= this.windowSeconds;
  }
}
