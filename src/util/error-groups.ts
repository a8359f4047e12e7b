/**
 * Errors grouped by reason: texts that differ only in quoted values or in long or fractional
 * numbers are one reason (160 inserts refused with `invalid input syntax for type bigint:
 * "1796231642660.4536"`, each with its own number, are one reason ×160). The group keeps its
 * first text verbatim as its name, so a reader sees one real example with the count. Short
 * integers (status and close codes: HTTP 401 and 429, close 1006 and 1011) stay apart: they name
 * different reasons.
 */

/** Quoted values ("…", '…', “…”) and numbers of 5+ digits or with a fraction, as placeholders. */
export function errorGroupOf(reason: string): string {
  return reason
    .replace(/"[^"]*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/“[^”]*”/g, '“…”')
    .replace(/-?\d+\.\d+(e[+-]?\d+)?|\d{5,}/gi, '#');
}

/**
 * Adds `n` of `reason` to `into` under its group's first verbatim text (`groups`: group → that
 * text, kept by the caller across calls); returns the name it was counted under.
 */
export function addGrouped(
  into: Map<string, number>,
  groups: Map<string, string>,
  reason: string,
  n: number,
): string {
  const group = errorGroupOf(reason);
  let name = groups.get(group);
  if (name === undefined) groups.set(group, (name = reason));
  into.set(name, (into.get(name) ?? 0) + n);
  return name;
}

/** Counts by reason, grouped: each group under its first verbatim text, in first-seen order. */
export function groupErrors(
  ...counts: ReadonlyArray<Readonly<Record<string, number>>>
): Map<string, number> {
  const into = new Map<string, number>();
  const groups = new Map<string, string>();
  for (const c of counts)
    for (const [reason, n] of Object.entries(c)) addGrouped(into, groups, reason, n);
  return into;
}
