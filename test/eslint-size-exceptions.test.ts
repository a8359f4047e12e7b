import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
type SizeRule = 'max-lines-per-function' | 'max-lines';
// Plain JavaScript modules without types: read at run time, typed here.
const { sizeRules, paramRules } = (await import(
  pathToFileURL(join(root, 'eslint.config.js')).href
)) as {
  sizeRules: Record<SizeRule, Linter.RuleEntry>;
  paramRules: Record<'max-params', Linter.RuleEntry>;
};
const { longFiles, longFunctionFiles } = (await import(
  pathToFileURL(join(root, 'eslint.size-exceptions.js')).href
)) as { longFiles: string[]; longFunctionFiles: string[] };

/** The messages `rule` (as eslint.config.js sets it) gives for one file of the repository. */
function findings(path: string, rule: SizeRule): Linter.LintMessage[] {
  const linter = new Linter({ configType: 'flat' });
  const config: Linter.Config[] = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser as Linter.Parser },
      rules: { [rule]: sizeRules[rule] },
    },
  ];
  return linter.verify(readFileSync(join(root, path), 'utf8'), config, path);
}

// The exceptions only shrink: a file that keeps the rule again, or is gone, must leave the list,
// or the exemption would hide the next long function written there.
describe.each([
  ['max-lines-per-function', longFunctionFiles],
  ['max-lines', longFiles],
] as const)('eslint.size-exceptions.js, %s', (rule, files) => {
  it('lists each file once', () => {
    expect(files.filter((f, i) => files.indexOf(f) !== i)).toEqual([]);
  });
  it.each(files)('%s still breaks the rule (else delete its line)', (path) => {
    expect(existsSync(join(root, path)), `${path} does not exist`).toBe(true);
    const own = findings(path, rule).filter((m) => m.ruleId === rule);
    expect(own.length, `${path} keeps ${rule}: delete its line`).toBeGreaterThan(0);
  });
});

describe('the size rules', () => {
  it('report a function of 81 lines and pass one of 80, comments and blank lines counted', () => {
    const body = (n: number) => ['// a comment', '', ...Array(n - 4).fill('  x();')].join('\n');
    const fn = (n: number) => `function f() {\n${body(n)}\n}\n`;
    const linter = new Linter({ configType: 'flat' });
    const lint = (text: string) =>
      linter.verify(text, [
        { rules: { 'max-lines-per-function': sizeRules['max-lines-per-function'] } },
      ]);
    expect(fn(80).split('\n').length - 1).toBe(80);
    expect(lint(fn(80))).toEqual([]);
    expect(lint(fn(81)).map((m) => m.ruleId)).toEqual(['max-lines-per-function']);
  });
});

describe('the parameter rule', () => {
  it('reports a function of five positional parameters and passes one of four', () => {
    const linter = new Linter({ configType: 'flat' });
    const lint = (params: string) =>
      linter.verify(`function f(${params}) {}\n`, [{ rules: paramRules }]).map((m) => m.ruleId);
    expect(lint('a, b, c, d')).toEqual([]);
    expect(lint('a, b, c, d, e')).toEqual(['max-params']);
  });
});
