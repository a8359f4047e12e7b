/**
 * The bundle (dist/bundle/, scripts/bundle.mjs) is what runs: bin/rtcap.js, generator processes
 * and the built-in server's workers start from it, it is whole (it loads nothing of tsc's
 * output), and bundling kept a command's start-up to its own code: `rtcap run` still loads none
 * of the packages only other commands and optional features use. Checked in a fresh Node
 * process that records every file it loads, mapped to what esbuild put in each (meta.json).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NOT_ON_THE_RUN_PATH, modulesLoadedBy } from '../support/loaded-modules.js';
import { binEntry, distEntry } from '../../src/util/paths.js';

const ROOT = resolve(import.meta.dirname, '../..');
const meta = JSON.parse(readFileSync(join(ROOT, 'dist/bundle/meta.json'), 'utf8')) as {
  outputs: Record<string, { inputs: Record<string, unknown>; entryPoint?: string }>;
};
const bundled = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'bundle', p)).href);

/** The files of the package a process loaded, relative to the package root. */
function ownFiles(modules: string[]): string[] {
  return modules
    .map((m) => (m.startsWith('file:') ? fileURLToPath(m) : m))
    .filter((f) => f.startsWith(ROOT) && !f.includes('/node_modules/'))
    .map((f) => relative(ROOT, f));
}

/** The sources and packages (node_modules/<name>) inside the bundle files a process loaded. */
function bundledInputs(modules: string[]): { sources: Set<string>; packages: Set<string> } {
  const sources = new Set<string>();
  const packages = new Set<string>();
  for (const f of ownFiles(modules)) {
    const out = meta.outputs[f];
    if (!out) continue;
    for (const input of Object.keys(out.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (pkg) packages.add(pkg[1]);
      else sources.add(input);
    }
  }
  return { sources, packages };
}

describe('the bundle', () => {
  it('is what bin/rtcap.js runs, whole: --version loads no file of tsc output and no command', () => {
    const modules = modulesLoadedBy(
      `process.argv = [process.execPath, ${JSON.stringify(binEntry())}, '--version']; await import(${JSON.stringify(pathToFileURL(binEntry()).href)});`,
    );
    const own = ownFiles(modules);
    expect(own).toContain('dist/bundle/cli/main.js');
    expect(own.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/bundle/'))).toEqual([]);
    const { sources } = bundledInputs(modules);
    expect(sources.has('dist/cli/main.js')).toBe(true);
    expect(
      [...sources].filter((s) => /^dist\/cli\/(run|serve|campaign|sweep)\.js$/.test(s)),
    ).toEqual([]);
    const version = execFileSync(process.execPath, [binEntry(), '--version'], { encoding: 'utf8' });
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.trim()).toBe(pkg.version);
  });

  it('the run command: none of the packages only other commands, reports or optional features use', () => {
    const modules = modulesLoadedBy(
      `const m = await import(${bundled('cli/main.js')}); await m.commandsFor(['run']);`,
    );
    const { sources, packages } = bundledInputs(modules);
    // What the run path needs is there, so an empty set cannot pass for a clean one.
    expect(sources.has('dist/cli/run.js')).toBe(true);
    expect(packages.has('yargs')).toBe(true);
    expect(packages.has('zod')).toBe(true);
    for (const heavy of NOT_ON_THE_RUN_PATH)
      expect([heavy, packages.has(heavy)]).toEqual([heavy, false]);
    expect([...sources].filter((s) => s.startsWith('dist/dashboard/'))).toEqual([]);
  });

  it("starts rtcap's own processes: a generator process, a server worker, a relay thread", () => {
    for (const entry of [
      'generator/worker-main.js',
      'server/cluster/worker-main.js',
      'link/relay-thread.js',
    ])
      expect(relative(ROOT, distEntry(entry))).toBe(`dist/bundle/${entry}`);
    // As the coordinator's child it would have process.send; it leaves once loaded.
    const modules = modulesLoadedBy(
      `process.send = () => true; await import(${bundled('generator/worker-main.js')}); process.exit(0);`,
    );
    const own = ownFiles(modules);
    expect(own).toContain('dist/bundle/generator/worker-main.js');
    expect(own.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/bundle/'))).toEqual([]);
    expect(bundledInputs(modules).sources.has('dist/generator/worker.js')).toBe(true);
  });
});
