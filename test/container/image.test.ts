/**
 * The container image without a Docker engine (this machine has none): what `docker build .`
 * would send as its context — every file on disk under the checkout, filtered by .dockerignore
 * with Docker's own matching rules (@balena/dockerignore, a port of moby's) — and what the
 * Dockerfile does with it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// A CommonJS module whose export is the factory itself (its typings say `export default`).
const dockerignore = createRequire(import.meta.url)(
  '@balena/dockerignore',
) as typeof import('@balena/dockerignore').default;

const ROOT = resolve(import.meta.dirname, '../..');
const rules = readFileSync(join(ROOT, '.dockerignore'), 'utf8');
const ig = dockerignore().add(rules);
// Without a "!" rule nothing under an excluded directory comes back, so the walk may skip it
// (node_modules alone is tens of thousands of files).
const hasExceptions = rules.split('\n').some((l) => l.trim().startsWith('!'));

/** The build context as Docker computes it: relative paths of the files it would send. */
function buildContext(dir = ROOT, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!hasExceptions && ig.ignores(path)) continue;
      out.push(...buildContext(join(dir, e.name), path));
    } else if (!ig.ignores(path)) out.push(path);
  }
  return out;
}

const context = buildContext();
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

describe('the build context', () => {
  it("holds none of the host's installs, builds, runs, logs or keys", () => {
    // The checkout this runs in has all of these on disk (npm ci made node_modules and dist).
    expect(readdirSync(ROOT)).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
    const leaked = context.filter((p) =>
      /(^|\/)(node_modules|dist|reports|\.git)(\/|$)|\.log$|(^|\/)\.env|\.(pem|key)$/.test(p),
    );
    expect(leaked).toEqual([]);
  });

  it('holds every file the build reads: manifests, compiler config, sources, bin, profiles', () => {
    const need = [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'bin/rtcap.js',
    ];
    expect(context).toEqual(expect.arrayContaining(need));
    // Every tracked source and shipped profile (git knows them; the context is read from disk).
    const tracked = execFileSync('git', ['ls-files', 'src', 'profiles'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    expect(tracked.length).toBeGreaterThan(100);
    expect(tracked.filter((p) => !context.includes(p))).toEqual([]);
  });

  it('is the sources, not the checkout: a few hundred files', () => {
    expect(context.length).toBeLessThan(2000);
    expect(context.some((p) => p.startsWith('test/'))).toBe(false);
  });
});

describe('the Dockerfile', () => {
  const stages = dockerfile.split(/^FROM /m).slice(1);

  it('copies into the build stage only what the context holds', () => {
    const sources = [...stages[0].matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) =>
      m[1].split(/\s+/),
    );
    for (const s of sources.filter((x) => x !== '.')) expect(context, s).toContain(s);
  });

  it('runs the final image as a user that is not root, after every step that needs root', () => {
    const last = stages[stages.length - 1];
    const users = [...last.matchAll(/^USER (\S+)/gm)].map((m) => m[1]);
    expect(users.length).toBeGreaterThan(0);
    expect(['root', '0', '0:0']).not.toContain(users[users.length - 1]);
    expect(last.lastIndexOf('\nUSER ')).toBeGreaterThan(last.lastIndexOf('\nRUN '));
  });

  it('ships the compiled CLI from the build stage, not from the host', () => {
    const last = stages[stages.length - 1];
    const copies = [...last.matchAll(/^COPY (.+)$/gm)].map((m) => m[1]);
    expect(copies.every((c) => c.startsWith('--from=build '))).toBe(true);
    expect(copies.join('\n')).toMatch(/\/app\/dist/);
  });
});
