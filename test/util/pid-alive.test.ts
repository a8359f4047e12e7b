import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pidAlive } from '../../src/util/pid-alive.js';

describe('pidAlive', () => {
  it('is true for this process and false for one that has exited', () => {
    expect(pidAlive(process.pid)).toBe(true);
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    expect(pidAlive(gone)).toBe(false);
  });
});
