import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { overwriteInPlace, writeFailureOf } from '../../src/run/write-failure.js';
import { tempDir } from '../support/temp-dir.js';

const errno = (code: string) => Object.assign(new Error(`${code}: boom`), { code });

describe('writeFailureOf', () => {
  it('names a full disk, the file and the directory in one line', () => {
    const e = writeFailureOf(errno('ENOSPC'), '/r', 'timeseries.ndjson');
    expect(e.line).toBe('disk full: no space left in /r (ENOSPC writing timeseries.ndjson)');
    expect(e.exitCode).toBe(3);
    expect(writeFailureOf(errno('EDQUOT'), '/r', 'x').line).toMatch(/^disk full: /);
  });

  it('names a read-only file system, and quotes anything else', () => {
    expect(writeFailureOf(errno('EROFS'), '/r', 'result.json').line).toBe(
      'cannot write result.json in /r: read-only file system',
    );
    expect(writeFailureOf(errno('EIO'), '/r', 'a').line).toBe('cannot write a in /r: EIO: boom');
  });
});

describe('overwriteInPlace', () => {
  it('writes the first body over the file and cuts it to that length', () => {
    const path = join(tempDir('rtcap-wf-'), 'result.json');
    writeFileSync(path, 'x'.repeat(100));
    expect(overwriteInPlace(path, ['{"a":1}\n', '{}\n'])).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n');
  });

  it('creates the file when it is not there', () => {
    const path = join(tempDir('rtcap-wf-'), 'result.json');
    expect(overwriteInPlace(path, ['{}\n'])).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('{}\n');
  });

  it('returns null when nothing can be written (the path is a directory)', () => {
    expect(overwriteInPlace(tempDir('rtcap-wf-'), ['{}'])).toBeNull();
  });
});
