#!/usr/bin/env node
// Entry point: the CLI is compiled to dist/ by `npm install` (the prepare script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const main = join(here, '..', 'dist', 'cli', 'main.js');
if (!existsSync(main)) {
  process.stderr.write(
    'rtcap: dist/ is missing; run `npm install` (or `npm run build`) in the rtcap checkout first.\n',
  );
  process.exit(2);
}
// A benchmark command's Ctrl-C is caught from here on, before the CLI's modules load: a signal
// during start-up is held for the run, which writes what it has (src/cli/interrupt.ts).
const { holdSignals } = await import(join(here, '..', 'dist', 'cli', 'interrupt.js'));
holdSignals(process.argv.slice(2));
const { main: run } = await import(main);
await run(process.argv.slice(2));
