/**
 * Counts by name (errors by verbatim reason, mostly) added up over processes or seconds: the one
 * way rtcap merges them. A Map keeps the order names were first seen, whatever they look like.
 */

/** Adds each of `counts` to `into` (a name not there yet starts at 0); returns `into`. */
export function addCounts(
  into: Map<string, number>,
  counts: Readonly<Record<string, number>>,
): Map<string, number> {
  for (const [name, n] of Object.entries(counts)) into.set(name, (into.get(name) ?? 0) + n);
  return into;
}
