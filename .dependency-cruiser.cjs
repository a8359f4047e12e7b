/**
 * Which way imports point in src/ (docs/ARCHITECTURE.md, "Folders": the "may import" column).
 * Checked by test/dependency-rules.test.ts inside `npm test`; `npx depcruise src` prints the
 * same. Every rule counts type-only imports too (tsPreCompilationDeps), since a type import
 * binds one module to another as much as a value import does.
 */

/**
 * folder → the folders (or single `.ts` files) of ours it may import besides itself
 * (node_modules are not checked).
 */
const MAY_IMPORT = {
  util: [],
  protocol: [],
  redact: [],
  result: [],
  profile: ['redact', 'result'],
  client: ['protocol', 'measure', 'redact', 'result'],
  measure: ['protocol', 'result'],
  monitor: ['redact', 'result'],
  scenarios: ['profile', 'protocol', 'measure', 'load', 'generator', 'result'],
  generator: ['client', 'measure', 'scenarios', 'protocol', 'profile', 'redact', 'result'],
  load: ['generator', 'client', 'measure', 'scenarios', 'protocol', 'profile', 'redact', 'result'],
  model: ['result'],
  capacity: ['model', 'result'],
  plan: ['capacity', 'model', 'result'],
  report: ['model', 'capacity', 'plan', 'result'],
  // builtin: the built-in server's config schema and defaults, so a figure that needs what that
  // server enforces (db_pool, the presence quota) reads it instead of restating it.
  figures: [
    'generator',
    'load',
    'measure',
    'model',
    'monitor',
    'profile',
    'protocol',
    'result',
    'scenarios',
    'builtin',
  ],
  shard: [
    'generator',
    'load',
    'measure',
    'monitor',
    'profile',
    'protocol',
    'result',
    'figures',
    'scenarios',
  ],
  k8s: ['profile', 'redact', 'result'],
  builtin: [],
  server: ['builtin', 'protocol', 'redact'],
};

const folder = (f) => `^src/${f}/`;
/** A folder, or one file when the entry names a `.ts` file. */
const target = (f) => (f.endsWith('.ts') ? `^src/${f.replace('.', '[.]')}$` : folder(f));
/** Folders inside another that the rules treat as their own (none today). */
const SUBFOLDERS = [];

const layerRules = Object.entries(MAY_IMPORT).map(([from, allowed]) => ({
  name: `${from.replace('/', '-')}-may-import-only`,
  comment: `src/${from} may import only ${allowed.length ? allowed.join(', ') : 'nothing of ours'}`,
  severity: 'error',
  from: {
    path: folder(from),
    pathNot: SUBFOLDERS.filter((s) => s.startsWith(`${from}/`)).map(folder),
  },
  to: {
    path: '^src/',
    // src/util (rounding, sum, sleep) is the leaf of small helpers every folder may import.
    pathNot: [from, ...allowed, 'util'].map(target),
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import cycle in src/, type-only imports included',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'nothing-imports-cli',
      comment: 'cli wires the rest together; nothing below it imports it',
      severity: 'error',
      from: { path: '^src/', pathNot: folder('cli') },
      to: { path: folder('cli') },
    },
    {
      name: 'dashboard-never-imports-the-server',
      comment: 'the live page shows a run; the built-in server is another program',
      severity: 'error',
      from: { path: folder('dashboard') },
      to: { path: folder('server') },
    },
    {
      name: 'run-never-imports-the-server',
      comment: 'run starts `rtcap serve` as a process; what both programs share is in src/builtin',
      severity: 'error',
      from: { path: folder('run') },
      to: { path: folder('server') },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
