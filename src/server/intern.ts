/**
 * One shared copy of the strings many connections repeat: the anon key every socket and join
 * carries, upgrade-header values, topics and PubSub keys. Without it each connection keeps its
 * own copies — and a token read from the URL is a slice that keeps the whole URL alive.
 *
 * The pool is bounded (per-user tokens are all different): once full, a string is still
 * copied flat (no slice or concatenation holding more than itself) but not pooled.
 */
const MAX_ENTRIES = 4096;
const pool = new Map<string, string>();

/** A fresh flat copy: not a slice of a longer string, not a chain of concatenations. */
export function flat(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

export function intern(s: string): string {
  const hit = pool.get(s);
  if (hit !== undefined) return hit;
  const copy = flat(s);
  if (pool.size < MAX_ENTRIES) pool.set(copy, copy);
  return copy;
}
