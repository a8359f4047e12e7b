// ESLint for rtcap: typescript-eslint's recommended rules, the type-checked rules that catch
// what a load tool cannot afford (a promise nobody awaits, a promise where a callback belongs),
// and lines of at most 100 characters. Long string and template literals are exempt: an error
// message is found by searching for it whole, and HTML, CSS and SQL templates keep their own
// layout. Layout is Prettier's (.prettierrc.json); `npm run lint` checks both, and `npm test`
// runs it first.
//
// Type information is most of the cost: `eslint .` took 83 s of CPU with the type-checked rules
// below, 30 s without type information, 123 s with the whole recommendedTypeChecked set (2026-12,
// `/usr/bin/time npx eslint .` on the 2-core development machine). That whole set is not on:
// it reports about 200 findings, most of them `any` read from JSON and type assertions
// TypeScript no longer needs.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { longFiles, longFunctionFiles } from './eslint.size-exceptions.js';

// Sizes a reader can hold: no function over 80 lines, no file over 400, in src/. Every line
// counts, blank and comment lines too (skipBlankLines and skipComments off): the limit is what
// a reader scrolls through, so a function is not made shorter by deleting the comment that
// explains it, and the count is the one `wc -l` gives. Immediately invoked functions count
// like any other. Today's offenders are exempt file by file, each from the one rule it breaks,
// in eslint.size-exceptions.js.
export const sizeRules = {
  'max-lines-per-function': [
    'error',
    { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true },
  ],
  'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
};
// At most four positional parameters in src/: a function that needs more takes one named object,
// or moves onto the object it works on (run/run-options: a run's options travel as small parts).
// The generator's, the client's and the measurements' per-message paths allow seven: there an
// object per call would be an allocation per message sent or received (client/connection push,
// measure/ledger record, generator/step-sends send).
export const paramRules = { 'max-params': ['error', 4] };
const hotPathParamRules = { 'max-params': ['error', 7] };
const hotPaths = ['src/generator/**/*.ts', 'src/client/**/*.ts', 'src/measure/**/*.ts'];

/** A config block turning `rule` off for `files` (none when the list is empty). */
const exempt = (files, rule) => (files.length > 0 ? [{ files, rules: { [rule]: 'off' } }] : []);

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'reports/**', 'coverage/**', 'test/fixtures/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'max-len': [
        'error',
        {
          code: 100,
          tabWidth: 2,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreRegExpLiterals: true,
          ignoreUrls: true,
        },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      // Cheap once the types are loaded: awaiting what is not a promise, throwing or rejecting
      // with what is not an Error (its stack and message lost), a number added to a string.
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      '@typescript-eslint/restrict-plus-operands': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
    },
  },
  { files: ['src/**/*.ts'], rules: { ...sizeRules, ...paramRules } },
  { files: hotPaths, rules: hotPathParamRules },
  ...exempt(longFunctionFiles, 'max-lines-per-function'),
  ...exempt(longFiles, 'max-lines'),
);
