import { describe, expect, it } from 'vitest';
import {
  hostFitProblem,
  hostFitShortfalls,
  readHostRoom,
  tightestTaskLimit,
  type HostFitAsk,
  type HostRoom,
} from '../../src/load/host-fit.js';
import { MAX_LOOPBACK_ADDRESSES } from '../../src/generator/limits.js';

const room: HostRoom = {
  memAvailableMb: 4096,
  tasks: { left: 1000, limit: 'kernel.pid_max 32,768, 31,768 in use' },
  openFilesPerProcess: 20_000,
  hostFilesLeft: 2_000_000,
};
const ask = (o: Partial<HostFitAsk>): HostFitAsk => ({
  connections: 100_000,
  workers: 7,
  loopbackAddresses: 15,
  listedAddresses: 0,
  portsPerAddress: 27_232,
  portsPerConnection: 1,
  link: false,
  builtinServer: true,
  room,
  ...o,
});

describe('hostFitProblem', () => {
  it('lets through what fits', () => {
    expect(hostFitProblem(ask({}))).toBe(null);
  });

  it('names memory, processes and loopback addresses with their numbers', () => {
    const p = hostFitProblem(
      ask({ connections: 10_000_000, workers: 1667, loopbackAddresses: 17_000_000 }),
    );
    expect(p).toBe(
      'load asks for 10,000,000 connections, more than this machine can hold — ' +
        "memory: at least 188,750 MB (5.5 KB per connection + 40 MB per process × 1,667 processes + the built-in server's 7 KB per connection) > 4,096 MB available; " +
        'processes: 1,667 generator processes × 11 tasks (threads) each = 18,337 > 1,000 tasks left (kernel.pid_max 32,768, 31,768 in use); ' +
        'source ports: 17,000,000 loopback source addresses needed, 127.0.0.1–127.255.255.254 has 16,777,214; ' +
        'open files: 20,000,000 descriptors (2 per connection: generator 1, built-in server 1) > 2,000,000 left on this host (fs.file-max); ' +
        'lower load.steps.N.connections or split the run over machines (--segment)',
    );
  });

  it('127/8 holds exactly 16,777,214 addresses: one more is refused', () => {
    expect(MAX_LOOPBACK_ADDRESSES).toBe(16_777_214);
    const at = (loopbackAddresses: number) =>
      hostFitShortfalls(ask({ loopbackAddresses, room: { ...room, memAvailableMb: null } }));
    expect(at(MAX_LOOPBACK_ADDRESSES)).toEqual([]);
    expect(at(MAX_LOOPBACK_ADDRESSES + 1)).toEqual([
      'source ports: 16,777,215 loopback source addresses needed, 127.0.0.1–127.255.255.254 has 16,777,214',
    ]);
  });

  it('a link relays every connection in rtcap’s own process: 2 descriptors each, and 2 ports', () => {
    // 9,900 connections fit a 20,000 open-file limit (2 × 9,900 + 200 = 20,000), 9,901 do not.
    expect(hostFitShortfalls(ask({ connections: 9_900, link: true }))).toEqual([]);
    expect(hostFitShortfalls(ask({ connections: 9_901, link: true }))).toEqual([
      "open files: the link relay holds 2 descriptors per connection in rtcap's own process, 2 × 9,901 + 200 = 20,002 > its limit of 20,000 (ulimit -n)",
    ]);
    // Without the link the same connections are the generator processes' (each under its limit).
    expect(hostFitShortfalls(ask({ connections: 9_901 }))).toEqual([]);
    // The host's descriptors: generator 1 + relay 2 + built-in server 1 per connection.
    expect(
      hostFitShortfalls(
        ask({
          connections: 9_000,
          link: true,
          room: { ...room, hostFilesLeft: 35_999 },
        }),
      ),
    ).toEqual([
      'open files: 36,000 descriptors (4 per connection: generator 1, link relay 2, built-in server 1) > 35,999 left on this host (fs.file-max)',
    ]);
    // Listed source addresses carry both legs of a relayed connection.
    const listed = ask({
      connections: 9_000,
      loopbackAddresses: 0,
      listedAddresses: 1,
      portsPerAddress: 17_999,
      portsPerConnection: 2,
      link: true,
    });
    expect(hostFitShortfalls(listed)).toEqual([
      'source ports: 18,000 ports needed (2 per connection: the link relay dials from the same addresses) > 17,999 from 1 source address (17,999 each); list more in load.source_addresses',
    ]);
    expect(hostFitShortfalls({ ...listed, portsPerConnection: 1, link: false })).toEqual([]);
  });

  it('listed source addresses (or the one kernel default towards a remote server) bound the ports', () => {
    expect(
      hostFitShortfalls(ask({ loopbackAddresses: 0, listedAddresses: 3, portsPerAddress: 27_232 })),
    ).toEqual([
      'source ports: 100,000 ports needed > 81,696 from 3 source addresses (27,232 each); list more in load.source_addresses',
    ]);
    expect(
      hostFitShortfalls(ask({ loopbackAddresses: 0, listedAddresses: 4, portsPerAddress: 27_232 })),
    ).toEqual([]);
  });

  it("a split run's machine is judged on its share and says so", () => {
    const p = hostFitProblem(
      ask({
        connections: 1_000_000,
        totalConnections: 3_000_000,
        workers: 67,
        builtinServer: false,
      }),
    );
    expect(p).toMatch(
      /^load asks for 3,000,000 connections, 1,000,000 of them on this machine \(its segment\), more than this machine can hold — memory: at least 8,051 MB/,
    );
  });

  it('an unknown limit is not judged', () => {
    const unknown: HostRoom = {
      memAvailableMb: null,
      tasks: null,
      openFilesPerProcess: null,
      hostFilesLeft: null,
    };
    expect(hostFitProblem(ask({ connections: 1e7, workers: 667, link: true, room: unknown }))).toBe(
      null,
    );
  });
});

describe('tightestTaskLimit', () => {
  it('the limit with the fewest tasks left, with its value and use', () => {
    expect(
      tightestTaskLimit([
        { max: 32_768, used: 900, name: 'kernel.pid_max' },
        { max: 192_726, used: 900, name: 'kernel.threads-max' },
        { max: 2_000, used: 1_500, name: "the cgroup's pids.max" },
      ]),
    ).toEqual({ left: 500, limit: "the cgroup's pids.max 2,000, 1,500 in use" });
    expect(tightestTaskLimit([{ max: 10, used: 12, name: 'ulimit -u' }])?.left).toBe(0);
    expect(tightestTaskLimit([])).toBe(null);
  });
});

describe('readHostRoom (this host)', () => {
  it.runIf(process.platform === 'linux')(
    'reads memory, the tightest task limit and the host’s descriptors',
    () => {
      const r = readHostRoom(20_000);
      expect(r.memAvailableMb).toBeGreaterThan(0);
      expect(r.tasks?.left).toBeGreaterThan(0);
      expect(r.tasks?.limit).toMatch(/in use$/);
      expect(r.openFilesPerProcess).toBe(20_000);
      expect(r.hostFilesLeft).toBeGreaterThan(0);
      expect(readHostRoom(Infinity).openFilesPerProcess).toBe(null);
    },
  );
});
