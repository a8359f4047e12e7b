import { describe, expect, it } from 'vitest';
import { SpawnFailed, spawnFailureLine } from '../../src/load/spawn-failed.js';

describe('spawnFailureLine', () => {
  it('names the process, of how many, the code and what it means', () => {
    expect(spawnFailureLine(2, 6, { code: 'EAGAIN', message: 'spawn /usr/bin/node EAGAIN' })).toBe(
      "could not start generator process 3 of 6: EAGAIN (the system refused a new process: this user's process limit (ulimit -u), the cgroup's pids.max or kernel.pid_max is reached, or memory is short)",
    );
    expect(spawnFailureLine(0, 1, { code: 'ENOMEM', message: 'spawn node ENOMEM' })).toBe(
      'could not start generator process 1 of 1: ENOMEM (not enough memory for a new process)',
    );
  });

  it("a code it does not know keeps Node's message; no code, the message alone", () => {
    expect(spawnFailureLine(1, 2, { code: 'EPERM', message: 'spawn ip EPERM' })).toBe(
      'could not start generator process 2 of 2: EPERM (spawn ip EPERM)',
    );
    expect(spawnFailureLine(1, 2, { message: 'could not pin pid 7 to CPUs 9' })).toBe(
      'could not start generator process 2 of 2: could not pin pid 7 to CPUs 9',
    );
  });

  it('SpawnFailed carries the line, the cause and the pids it stopped', () => {
    const cause = Object.assign(new Error('spawn node EAGAIN'), { code: 'EAGAIN' });
    const e = new SpawnFailed(2, 6, cause, [11, 12]);
    expect(e.message).toMatch(/^could not start generator process 3 of 6: EAGAIN \(/);
    expect(e.cause).toBe(cause);
    expect(e.stoppedPids).toEqual([11, 12]);
  });
});
