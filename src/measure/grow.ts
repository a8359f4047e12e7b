/** Typed arrays of the ledgers that grow by doubling, keeping what they hold. */
export class Grow {
  static f64(a: Float64Array<ArrayBuffer>, need: number, fill = 0): Float64Array<ArrayBuffer> {
    if (need <= a.length) return a;
    let n = a.length || 64;
    while (n < need) n *= 2;
    const b = new Float64Array(n);
    if (fill !== 0) b.fill(fill);
    b.set(a);
    return b;
  }
  static u32(a: Uint32Array<ArrayBuffer>, need: number): Uint32Array<ArrayBuffer> {
    if (need <= a.length) return a;
    let n = a.length || 64;
    while (n < need) n *= 2;
    const b = new Uint32Array(n);
    b.set(a);
    return b;
  }
}
