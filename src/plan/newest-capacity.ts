/**
 * Which capacity table `rtcap plan` reads when no --capacity is given: the newest
 * `reports/<dir>/capacity.json` (by modification time) under the reports directory, the
 * place `rtcap campaign` writes to by default. Null when there is none.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function newestCapacityFile(reportsDir: string): string | null {
  let best: { path: string; mtimeMs: number } | null = null;
  let entries: string[];
  try {
    entries = readdirSync(reportsDir);
  } catch {
    return null;
  }
  for (const name of entries) {
    const path = join(reportsDir, name, 'capacity.json');
    try {
      const st = statSync(path);
      if (st.isFile() && (best === null || st.mtimeMs > best.mtimeMs))
        best = { path, mtimeMs: st.mtimeMs };
    } catch {
      // no capacity table in this directory (a single run, a sweep)
    }
  }
  return best?.path ?? null;
}
