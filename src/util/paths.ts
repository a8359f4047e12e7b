import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Child processes (generator workers, the built-in server) run compiled JavaScript from dist/.
 * Under vitest the code runs from src/*.ts, so point at the build instead (`npm test` builds
 * first).
 */
export function distEntry(relative: string): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return resolve(dirname(here), '..', relative);
  const root = resolve(dirname(here), '..', '..');
  const p = join(root, 'dist', relative);
  if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run build\` first`);
  return p;
}

/** bin/rtcap.js of this package, for starting rtcap itself as a child (e.g. `rtcap serve`). */
export function binEntry(): string {
  const here = fileURLToPath(import.meta.url);
  // dist/load/paths.js and src/util/paths.ts are both two levels below the package root.
  return resolve(dirname(here), '..', '..', 'bin', 'rtcap.js');
}
