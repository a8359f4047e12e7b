/**
 * One capacity table describes one server on one instance size measured by one rtcap: rows
 * from different targets, instance sizes or rtcap major versions cannot stand side by side
 * (a faster machine would lend its figures to a slower one). Every run is checked against the
 * first; the first difference is the reason the run is refused.
 */
import type { RunResult } from '../result/result.js';

export interface Source {
  /** The run directory, as given. */
  dir: string;
  result: RunResult & { sweep?: unknown };
}

/** The built-in server gets a fresh port each run: it is one target whatever the URL says. */
export function targetKey(r: RunResult): string {
  if (r.target.builtin) return 'the built-in server';
  try {
    const u = new URL(r.target.url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return r.target.url;
  }
}

export function majorVersion(v: string): string {
  return v.split('.')[0] ?? v;
}

const instanceText = (r: RunResult) =>
  `${r.target.instance.vcpus} vCPU / ${r.target.instance.memory_mb} MB${r.target.cpus ? ` (server CPUs ${r.target.cpus})` : ''}`;

/** Why `b` is not like for like with `a`, or null. */
export function unlikeReason(a: Source, b: Source): string | null {
  const ra = a.result;
  const rb = b.result;
  if (targetKey(ra) !== targetKey(rb))
    return `${b.dir} measured ${targetKey(rb)}, ${a.dir} measured ${targetKey(ra)}: one table is one target`;
  if (
    ra.target.instance.vcpus !== rb.target.instance.vcpus ||
    ra.target.instance.memory_mb !== rb.target.instance.memory_mb ||
    (ra.target.cpus ?? null) !== (rb.target.cpus ?? null)
  ) {
    return `${b.dir} ran on ${instanceText(rb)}, ${a.dir} on ${instanceText(ra)}: one table is one instance size`;
  }
  if (majorVersion(ra.rtcap_version) !== majorVersion(rb.rtcap_version)) {
    return `${b.dir}: measured with rtcap ${rb.rtcap_version}, ${a.dir} with ${ra.rtcap_version} (major versions differ)`;
  }
  return null;
}

/** Every refusal, one line each; empty when the runs may share a table. */
export function checkLikeForLike(sources: readonly Source[]): string[] {
  if (sources.length < 2) return [];
  return sources
    .slice(1)
    .map((s) => unlikeReason(sources[0], s))
    .filter((r): r is string => r !== null);
}
