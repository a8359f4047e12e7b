import { describe, expect, it } from 'vitest';
import { renderTerminalSummary } from '../../src/report/terminal.js';
import { renderTextTable } from '../../src/report/table.js';
import { loadRun } from '../fixtures/index.js';

describe('renderTerminalSummary', () => {
  it('fixed-width columns: every row puts the verdict at the same column', () => {
    const out = renderTerminalSummary(loadRun('run-b'));
    const lines = out.split('\n');
    const header = lines[1];
    const at = header.indexOf('verdict');
    expect(at).toBeGreaterThan(0);
    for (const l of lines.slice(2, 6)) expect(l.slice(at)).toMatch(/^(stable|BROKEN)/);
    expect(lines[0]).toBe(
      'rtcap 2025-01-03T00-00-00Z-b — broadcast-public — aborted: server closed every socket (1006) during step 3 — ws://127.0.0.1:4000/socket/websocket',
    );
    expect(out).toContain('  3*    1,000/1,000      30   28,208    94.12%');
    expect(out).toContain('* incomplete (cut short)');
    expect(out).toContain('fit: CPU ≈ 3.0 % + 2.20 pp × deliveries/s ÷ 1,000 (R² 1.00, 3 steps)');
  });

  it('marks generator-bound steps as not capacity and lists notes', () => {
    const out = renderTerminalSummary(loadRun('run-a'));
    expect(out).toContain('GENERATOR-BOUND (not capacity)');
    expect(out).toMatch(/notes \(1\):\n {2}- Step 4 is generator-bound/);
  });

  it('names the latency of its columns and draws latency against load at the width given', () => {
    const out = renderTerminalSummary(loadRun('seed-002-s1.2-deliveries'), undefined, {
      width: 120,
    });
    expect(out).toContain(
      'p50/p95/p99: first-receipt latency (scheduled send → first receipt of each message); the live line showed every receipt',
    );
    expect(out).toContain('first-receipt p95 (log scale) vs deliveries/s, one marker per step:');
    expect(out.split('\n').find((l) => l.includes('└'))!.length).toBe(120);
  });

  it('shows "—" for missing figures', () => {
    expect(renderTerminalSummary(loadRun('seed-002-s1.2-deliveries'))).toMatch(
      /94\.8%\s+—\s+—\s+DEGRADED/,
    );
  });
});

describe('renderTextTable', () => {
  it('pads to the widest cell and truncates long ones', () => {
    const t = renderTextTable(
      {
        id: 't',
        title: '',
        columns: ['a', 'bb'],
        rows: [
          ['xxxx', '1'],
          ['y', '22'],
        ],
      },
      3,
    );
    expect(t).toBe('a    bb\nxx…   1\ny    22');
  });
});
