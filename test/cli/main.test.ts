/**
 * What `rtcap run` loads (the fixed cost of a run): cli/main.ts loads only the
 * command named, and the run path keeps the heavy packages it rarely or never needs out of its
 * start-up — each of them cost a run tens to hundreds of CPU ms when imported for nothing.
 * Checked on dist/ (what the binary runs), in a fresh Node process that records every module
 * it resolves.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NOT_ON_THE_RUN_PATH, modulesLoadedBy } from '../support/loaded-modules.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** The packages (node_modules/<name>) a Node process loads while running `script`. */
function packagesLoadedBy(script: string): Set<string> {
  const pkgs = new Set<string>();
  for (const line of modulesLoadedBy(script)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(line);
    if (m) pkgs.add(m[1]);
  }
  return pkgs;
}

const dist = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist', p)).href);

describe('what `rtcap run` loads at start-up', () => {
  it('the run command: none of the packages only other commands, reports or optional features use', () => {
    const pkgs = packagesLoadedBy(
      `const m = await import(${dist('cli/main.js')}); await m.commandsFor(['run']);`,
    );
    // The recorder works: the run path does load its argument parser and profile schema.
    expect(pkgs.has('yargs')).toBe(true);
    expect(pkgs.has('zod')).toBe(true);
    for (const heavy of NOT_ON_THE_RUN_PATH) {
      expect([heavy, pkgs.has(heavy)]).toEqual([heavy, false]);
    }
  });

  it('run, sweep, campaign and quotas without --dashboard: none of the dashboard modules', () => {
    for (const command of ['run', 'sweep', 'campaign', 'quotas']) {
      const modules = modulesLoadedBy(
        `const m = await import(${dist('cli/main.js')}); await m.commandsFor([${JSON.stringify(command)}]);`,
      );
      // The recorder saw the command's own module, so an empty list cannot pass for a clean one.
      expect(
        modules.some((m) => m.includes(`/dist/cli/${command}.js`)),
        command,
      ).toBe(true);
      expect([command, modules.filter((m) => m.includes('/dist/dashboard/'))]).toEqual([
        command,
        [],
      ]);
    }
  });
});

describe('rtcap --version', () => {
  it('prints the version without loading a command', () => {
    const modules = modulesLoadedBy(
      `const m = await import(${dist('cli/main.js')}); await m.main(['--version']);`,
    );
    expect(modules.some((m) => m.includes('/dist/cli/main.js'))).toBe(true);
    const command =
      /\/dist\/cli\/(run|merge|k8s|sweep|report|compare|dashboard|campaign|capacity|plan|quotas|serve|init|profiles|clean)\.js$/;
    expect(modules.filter((m) => command.test(m))).toEqual([]);
    const version = execFileSync(process.execPath, [join(ROOT, 'bin/rtcap.js'), '--version'], {
      encoding: 'utf8',
    });
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.trim()).toBe(pkg.version);
  });
});

describe('helpAsked', () => {
  it('is true for --help and -h (alone or among short flags), false otherwise', async () => {
    const { helpAsked } = await import('../../src/cli/main.js');
    expect(helpAsked(['--help'])).toBe(true);
    expect(helpAsked(['run', '-h'])).toBe(true);
    expect(helpAsked(['run', '-vh'])).toBe(true);
    expect(helpAsked(['run', 'profile.yaml', '--no-progress'])).toBe(false);
    expect(helpAsked(['run', '--hosts', 'x'])).toBe(false);
    expect(helpAsked([])).toBe(false);
  });
});
