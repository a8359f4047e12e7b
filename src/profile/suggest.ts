/** "Did you mean" for mistyped profile keys. */

/**
 * Levenshtein distance (insert, delete, substitute) that also counts swapping two adjacent
 * characters as one edit ("optimal string alignment"): `stesp` is one slip from `steps`, not two.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  // Three rolling rows: the transposition looks two rows back.
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2] + 1);
      cur[j] = d;
    }
    [before, prev, cur] = [prev, cur, before];
  }
  return prev[b.length];
}

/** Case and `-`/`_` differences are the commonest slips in YAML keys; they cost nothing here. */
const normalize = (k: string): string => k.toLowerCase().replace(/-/g, '_');

/**
 * The allowed key closest to `key`, if it is close enough to be a typo: at most a third of the
 * key's length in edits (at least 1, at most 3), so `conections` → `connections` but `foo` → none;
 * or a known key it is the start of. Ties go to the key declared first.
 */
export function closestKey(key: string, allowed: readonly string[]): string | null {
  const k = normalize(key);
  const limit = Math.min(3, Math.max(1, Math.floor(k.length / 3)));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    const d = editDistance(k, normalize(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (bestDistance <= limit) return best;
  // A shortened key (`delivery` for `delivery_rate`) is far in edits but plainly meant.
  if (k.length >= 4) return allowed.find((c) => normalize(c).startsWith(k)) ?? null;
  return null;
}
