import { describe, expect, it } from 'vitest';
import { hostFitProblem } from '../../src/load/host-fit.js';

const room = { memAvailableMb: 4096, processesLeft: 1000 };

describe('hostFitProblem', () => {
  it('lets through what fits', () => {
    expect(hostFitProblem({ connections: 100_000, workers: 7, loopbackAddresses: 15, room })).toBe(
      null,
    );
  });

  it('names memory, processes and loopback addresses with their numbers', () => {
    const p = hostFitProblem({
      connections: 10_000_000,
      workers: 1667,
      loopbackAddresses: 1417,
      room,
    });
    expect(p).toBe(
      'load asks for 10,000,000 connections, more than this machine can hold — ' +
        'memory: at least 139,922 MB (7.5 KB per connection + 40 MB per process × 1,667 processes) > 4,096 MB available; ' +
        "processes: 1,667 generator processes > this user's limit of 1,000 (ulimit -u); " +
        'source ports: 1,417 loopback source addresses needed, 127.0.0.x has 254; ' +
        'lower load.steps.N.connections or split the run over machines (--segment)',
    );
  });

  it('an unknown limit is not judged', () => {
    const unknown = { memAvailableMb: null, processesLeft: null };
    expect(
      hostFitProblem({ connections: 1e7, workers: 667, loopbackAddresses: 0, room: unknown }),
    ).toBe(null);
  });
});
