/**
 * Sliding means over the last N seconds, the seed's rate figures ("速率类指标按 60 秒滑动均值").
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
