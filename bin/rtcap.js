#!/usr/bin/env node
// Entry point: the CLI is compiled to dist/ by `npm install` (the prepare script), and bundled to
// dist/bundle/, which starts in about half the CPU time (scripts/bundle.mjs); a build without
// the bundle runs tsc's output.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const bundled = join(dist, 'bundle', 'cli', 'main.js');
const cli = existsSync(bundled) ? join(dist, 'bundle', 'cli') : join(dist, 'cli');
if (!existsSync(join(cli, 'main.js'))) {
  process.stderr.write(
    'rtcap: dist/ is missing; run `npm install` (or `npm run build`) in the rtcap checkout first.\n',
  );
  process.exit(2);
}
// A benchmark command's Ctrl-C is caught from here on, before the CLI's modules load: a signal
// during start-up is held for the run, which writes what it has (src/cli/interrupt.ts). The
// bundle's interrupt.js shares its state with the bundled CLI (one chunk).
const { holdSignals } = await import(join(cli, 'interrupt.js'));
holdSignals(process.argv.slice(2));
const { main: run } = await import(join(cli, 'main.js'));
await run(process.argv.slice(2));
