/** The sum of one number over a list (e.g. one count over every generator process). */
export function sumOf<T>(items: readonly T[], f: (item: T) => number): number {
  return items.reduce((a, x) => a + f(x), 0);
}
