import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | null = null;

/**
 * The rtcap package's own directory (the one with its package.json), found from this module's
 * file upwards: the same whether this code runs from src/ (tests, tsx), dist/ or a bundle in
 * dist/bundle/ (scripts/bundle.mjs), which sit at different depths.
 */
export function packageRoot(): string {
  if (root !== null) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (
      existsSync(pkg) &&
      (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'rtcap'
    )
      return (root = dir);
    const up = dirname(dir);
    if (up === dir)
      throw new Error(`rtcap's package.json not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** The version in rtcap's package.json. */
export function rtcapVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The file a child process (generator process, built-in server) or thread runs, `relative` to
 * dist/: its bundle (dist/bundle/, which starts in about half the CPU time) when the build made
 * one, else tsc's output. Under vitest the code runs from src/*.ts; the children still run the
 * build (`npm test` builds first).
 */
export function distEntry(relative: string): string {
  const dist = join(packageRoot(), 'dist');
  const bundled = join(dist, 'bundle', relative);
  if (existsSync(bundled)) return bundled;
  const p = join(dist, relative);
  if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run build\` first`);
  return p;
}

/** bin/rtcap.js of this package, for starting rtcap itself as a child (e.g. `rtcap serve`). */
export function binEntry(): string {
  return join(packageRoot(), 'bin', 'rtcap.js');
}
