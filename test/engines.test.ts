/**
 * A new user's first command prints no warning: every package the lockfile installs accepts
 * every Node version package.json's `engines` promises (npm warns EBADENGINE otherwise), so a
 * dependency that wants a newer Node than rtcap does is caught here, not by the user.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
/** npm's own range rules (semver, a dev dependency); the two functions used, typed here. */
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(resolve(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};

describe("the lockfile's engines", () => {
  it("promises the Node versions the README names: package.json's engines", () => {
    expect(pkg.engines.node).toBe('^20.19.0 || ^22.13.0 || >=24');
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('Node 20.19 or later (22.13 or later on Node 22)');
  });

  it('every installed package accepts every Node version package.json promises', () => {
    // The oldest version of each range promised ("^20.19.0 || >=24": 20.19.0 and 24.0.0).
    const promised = pkg.engines.node.split('||').map((r) => semver.minVersion(r)!.version);
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      // An old-style engines array (a list of "node >= x" strings) says nothing npm checks.
      const wants = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!path || !wants) continue;
      const refused = promised.filter((v) => !semver.satisfies(v, wants));
      if (refused.length)
        refusing.push(`${path} wants node ${wants} (refuses ${refused.join(', ')})`);
    }
    expect(refusing).toEqual([]);
  });
});
