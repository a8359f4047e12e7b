/**
 * Which way imports point in src/: down the floors of LAYERS, never up, with no exceptions.
 * Checked by test/dependency-rules.test.ts inside `npm test`; `npx depcruise src` prints the
 * same. Every rule counts type-only imports too (tsPreCompilationDeps), since a type import
 * binds one module to another as much as a value import does.
 */

/**
 * The floors of src/, top to bottom (docs/ARCHITECTURE.md, "Layers"). Read flat, the list is one
 * order: a folder may import only the folders after it, on its own floor or below. Every folder of
 * src/ is listed once (test/docs/architecture.test.ts checks that).
 */
const LAYERS = [
  ['cli', ['cli']],
  [
    'commands',
    [
      'server',
      'validate',
      'dashboard',
      'k8s',
      'campaign',
      'artefacts',
      'sweep',
      'quotas',
      'run',
      'init',
    ],
  ],
  ["a run's parts", ['recovery', 'shard', 'link', 'figures', 'monitor']],
  ['verdicts and reports', ['report', 'plan', 'capacity', 'model']],
  ['load', ['load']],
  ['generator', ['generator', 'scenarios']],
  ['client/protocol', ['client', 'measure', 'profile', 'builtin', 'redact', 'result', 'protocol']],
  ['util', ['util']],
];
const ORDER = LAYERS.flatMap(([, folders]) => folders);

const folder = (f) => `^src/${f}/`;

const layerRules = ORDER.map((from, i) => ({
  name: `${from}-imports-only-below`,
  comment: `src/${from} may import only ${ORDER.slice(i + 1).join(', ') || 'nothing of ours'}`,
  severity: 'error',
  from: { path: folder(from) },
  to: { path: '^src/', pathNot: [from, ...ORDER.slice(i + 1)].map(folder) },
}));

const unlisted = {
  name: 'every-folder-on-a-floor',
  comment: 'a file of src/ in a folder no floor lists: add the folder to LAYERS',
  severity: 'error',
  from: { path: '^src/', pathNot: ORDER.map(folder) },
  to: {},
};

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
    unlisted,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};

// The floors, for test/docs/architecture.test.ts (not a dependency-cruiser option).
Object.defineProperty(module.exports, 'LAYERS', { value: LAYERS, enumerable: false });
