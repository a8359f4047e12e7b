import { describe, expect, it } from 'vitest';
import { buildSummary } from '../../src/report/summary.js';
import { makeRun, makeStep } from '../fixtures/index.js';

describe('collectNotes — receipts counted apart', () => {
  it('reordered deliveries are named as delivered, never as duplicates', () => {
    const run = makeRun('broadcast-public', [
      makeStep(1, { messages: { reordered: 40, duplicates: 0 } }),
    ]);
    const notes = buildSummary(run).notes.filter((n) => n.startsWith('Step 1:'));
    expect(notes).toEqual([
      'Step 1: 40 deliveries arrived after a later message of the same stream (reordered; counted as delivered).',
    ]);
  });

  it('duplicates and reorders side by side', () => {
    const run = makeRun('broadcast-public', [
      makeStep(1, { messages: { reordered: 3, duplicates: 2 } }),
    ]);
    const [note] = buildSummary(run).notes.filter((n) => n.startsWith('Step 1:'));
    expect(note).toContain(
      '3 deliveries arrived after a later message of the same stream (reordered; counted as delivered); 2 duplicate receipts.',
    );
    expect(note).toContain(
      'Duplicates and unexpected receipts are counted apart, never as delivered.',
    );
  });

  it('no note when nothing was reordered or duplicated', () => {
    const run = makeRun('broadcast-public', [makeStep(1)]);
    expect(buildSummary(run).notes.filter((n) => n.startsWith('Step 1:'))).toEqual([]);
  });
});

describe('collectNotes — sends with none expected', () => {
  const sentNoneExpected = (joined: number) =>
    buildSummary(
      makeRun('broadcast-public', [
        makeStep(1, {
          connections: { joined },
          messages: { sent: 80, expected: 0, received: 0 },
        }),
      ]),
    ).notes.filter((n) => n.includes('none expected'));

  it('says "no receivers joined" only when none did', () => {
    expect(sentNoneExpected(1)).toEqual([
      'Step 1: 80 messages sent but none expected (no receivers joined): delivery is "—".',
    ]);
    expect(sentNoneExpected(100)).toEqual([
      'Step 1: 80 messages sent but none expected although 100 connections joined (none of the sends fell in the part of the step that was measured): delivery is "—".',
    ]);
  });
});

describe('collectNotes — per-second lines spread over the seconds they covered', () => {
  it('names the steady seconds whose rates are even shares, and that totals are exact', () => {
    const step = makeStep(1);
    step.generator = { ...step.generator, spread_seconds: 3 };
    const [note] = buildSummary(makeRun('broadcast-public', [step])).notes.filter((n) =>
      n.startsWith('Step 1:'),
    );
    expect(note).toBe(
      "Step 1: in 3 seconds of its steady window a generator process's per-second line came more than a second late and its counts were shared evenly over the seconds it covered (spread_lines in timeseries.ndjson), so the window's rates are estimates there; its totals are exact.",
    );
  });
});
