/**
 * The built-in server's own counters, read from its /metrics (no token needed,
 * src/server/metrics.ts).
 */
export async function serverCounters(port: number): Promise<Record<string, number>> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (!res.ok) throw new Error(`/metrics: HTTP ${res.status}`);
  const out: Record<string, number> = {};
  for (const line of (await res.text()).split('\n')) {
    const m = /^([a-z_]+)(?:\{[^}]*\})? (\S+)$/.exec(line);
    if (m) out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
  }
  return out;
}
