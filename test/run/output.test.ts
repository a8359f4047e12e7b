import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeRunId, RunWriter } from '../../src/run/output.js';
import { tempDir } from '../support/temp-dir.js';

describe('makeRunId', () => {
  it('is a sortable local timestamp and a safe name', () => {
    expect(makeRunId('my run/../x', new Date(2026, 10, 29, 23, 5, 9))).toBe(
      '20261129-230509-my-run-..-x',
    );
  });
});

describe('RunWriter', () => {
  it('never overwrites an earlier run of the same id', () => {
    const reports = tempDir('rtcap-out-');
    const a = RunWriter.forRun(undefined, reports, 'id');
    const b = RunWriter.forRun(undefined, reports, 'id');
    expect(a.dir).not.toBe(b.dir);
    expect(readdirSync(reports).sort()).toEqual(['id', 'id-2']);
  });

  it('writes result.json atomically (no temp file left) and appends the timeline', () => {
    const w = new RunWriter(tempDir('rtcap-out-'));
    w.writeResult({ schema: 'rtcap.result/v1' } as never);
    w.writeResult({ schema: 'rtcap.result/v1', run_id: 'x' } as never);
    w.appendTimeseries({ t: 1 } as never);
    w.appendTimeseries({ t: 2 } as never);
    expect(JSON.parse(readFileSync(w.path('result.json'), 'utf8')).run_id).toBe('x');
    expect(readFileSync(w.path('timeseries.ndjson'), 'utf8')).toBe('{"t":1}\n{"t":2}\n');
    expect(readdirSync(w.dir).sort()).toEqual(['result.json', 'timeseries.ndjson']);
  });

  it('a write that fails is told once through onFailure, never thrown, and leaves no temp file', () => {
    const w = new RunWriter(tempDir('rtcap-out-'));
    const told: string[] = [];
    w.onFailure = (line) => told.push(line);
    // A directory where the file should be: every write of it fails.
    mkdirSync(w.path('timeseries.ndjson'));
    mkdirSync(w.path('summary.md'));
    w.appendTimeseries({ t: 1 } as never);
    w.appendTimeseries({ t: 2 } as never);
    expect(() => w.writeText('summary.md', '# x')).toThrow(/cannot write summary.md in /);
    w.writeResult({ schema: 'rtcap.result/v1', run_id: 'x', status: 'aborted' } as never);
    expect(told).toEqual([expect.stringMatching(/^cannot write timeseries.ndjson in .*EISDIR/)]);
    expect(JSON.parse(readFileSync(w.path('result.json'), 'utf8')).status).toBe('aborted');
    expect(readdirSync(w.dir).sort()).toEqual(['result.json', 'summary.md', 'timeseries.ndjson']);
  });
});
