import { describe, expect, it } from 'vitest';
import { unknownLongOption } from '../../src/cli/unknown-option.js';

const known = ['out', 'dashboard', 'server-cpus', 'help', 'version'];

describe('unknownLongOption', () => {
  it('names the first long option the command does not know, wherever it stands', () => {
    expect(unknownLongOption(['run', '--nope', 'p.yaml'], known)).toBe('nope');
    expect(unknownLongOption(['run', 'p.yaml', '--out', 'd', '--nope=3'], known)).toBe('nope');
    expect(unknownLongOption(['run', '--outt', 'd', 'p.yaml'], known)).toBe('outt');
  });

  it('knows declared options in either spelling, their --no- form and values after =', () => {
    expect(
      unknownLongOption(
        ['run', '--serverCpus', '1', '--server-cpus=1', '--no-dashboard', '--out=d', 'p.yaml'],
        known,
      ),
    ).toBeNull();
  });

  it('reads nothing after a lone --, and no short flag or plain argument', () => {
    expect(unknownLongOption(['run', 'p.yaml', '--', '--nope'], known)).toBeNull();
    expect(unknownLongOption(['run', '-x', 'p.yaml', '-'], known)).toBeNull();
  });
});
