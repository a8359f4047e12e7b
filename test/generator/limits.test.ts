import { describe, expect, it } from 'vitest';
import {
  loopbackAddress,
  MAX_LOOPBACK_ADDRESSES,
  planGenerator,
  type GeneratorLimits,
} from '../../src/generator/limits.js';

/** A host with the Linux default port range (32768–60999) and a generous open-file limit. */
const HOST: GeneratorLimits = {
  openFilesPerProcess: 1_048_576,
  portRange: [32768, 60999],
  ephemeralPorts: 28_232,
};
const PORTS_PER_ADDRESS = 28_232 - 1000;
/**
 * A loopback address carries a quarter of the range (the kernel's port search slows as it fills).
 */
const LOOPBACK_PER_ADDRESS = 7_058;

const plan = (o: Partial<Parameters<typeof planGenerator>[0]>) =>
  planGenerator({
    maxConnections: 1000,
    requestedWorkers: 'auto',
    loopbackTarget: true,
    limits: HOST,
    ...o,
  });

describe('planGenerator: workers', () => {
  it.each([
    [0, 1],
    [1, 1],
    [15_000, 1],
    [15_001, 2],
    [45_000, 3],
    [100_000, 7],
  ])('auto: %i connections → %i workers (15,000 each)', (maxConnections, workers) => {
    const p = plan({ maxConnections });
    expect(p.workers).toBe(workers);
    expect(p.maxConnectionsPerWorker).toBe(Math.ceil(maxConnections / workers));
    expect(p.warnings).toEqual([]);
  });

  it('auto stays under the open-file limit, keeping a reserve for other descriptors', () => {
    const p = plan({ maxConnections: 20_000, limits: { ...HOST, openFilesPerProcess: 10_000 } });
    expect(p.workers).toBe(3); // 9,800 sockets per process at most
    expect(p.maxConnectionsPerWorker).toBeLessThanOrEqual(9_800);
    expect(p.warnings).toEqual([]);
  });

  it('an unlimited or unknown open-file limit leaves 15,000 per worker', () => {
    expect(
      plan({ maxConnections: 30_000, limits: { ...HOST, openFilesPerProcess: Infinity } }).workers,
    ).toBe(2);
    expect(
      plan({ maxConnections: 30_000, limits: { ...HOST, openFilesPerProcess: null } }).workers,
    ).toBe(2);
  });

  it('a per-worker default from the caller is honoured', () => {
    expect(plan({ maxConnections: 10_000, perWorkerDefault: 2_500 }).workers).toBe(4);
  });

  it('requested workers are kept; over the open-file limit they draw an EMFILE warning with a suggestion', () => {
    const p = plan({
      maxConnections: 20_000,
      requestedWorkers: 1,
      limits: { ...HOST, openFilesPerProcess: 10_000 },
    });
    expect(p.workers).toBe(1);
    expect(p.maxConnectionsPerWorker).toBe(20_000);
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0]).toContain('EMFILE');
    expect(p.warnings[0]).toContain('10000 per process');
    expect(p.warnings[0]).toContain('--workers 3');
  });

  it('requested workers within the limit draw no warning', () => {
    expect(
      plan({
        maxConnections: 20_000,
        requestedWorkers: 4,
        limits: { ...HOST, openFilesPerProcess: 10_000 },
      }).warnings,
    ).toEqual([]);
  });
});

describe('planGenerator: source addresses', () => {
  it('none while one address has ports enough (loopback: a quarter of the range; remote: the range less the reserve)', () => {
    expect(plan({ maxConnections: LOOPBACK_PER_ADDRESS }).sourceAddresses).toEqual([]);
    expect(plan({ maxConnections: PORTS_PER_ADDRESS, loopbackTarget: false })).toMatchObject({
      sourceAddresses: [],
      warnings: [],
    });
  });

  it('127.0.0.1..n on a loopback target, each carrying at most a quarter of the ephemeral range', () => {
    expect(plan({ maxConnections: LOOPBACK_PER_ADDRESS + 1 }).sourceAddresses).toEqual([
      '127.0.0.1',
      '127.0.0.2',
    ]);
    expect(plan({ maxConnections: 50_000 }).sourceAddresses).toEqual(
      Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 1}`),
    );
    const p = plan({ maxConnections: 100_000 });
    expect(p.sourceAddresses).toHaveLength(15);
    expect(p.warnings).toEqual([]);
  });

  it('a warning instead on a remote target', () => {
    const p = plan({ maxConnections: 100_000, loopbackTarget: false });
    expect(p.sourceAddresses).toEqual([]);
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0]).toContain('need 4 source addresses');
    expect(p.warnings[0]).toContain('load.source_addresses');
  });

  it('listed addresses are used as given; too few draw a warning', () => {
    const given = ['10.0.0.1', '10.0.0.2'];
    expect(
      plan({ maxConnections: 50_000, loopbackTarget: false, requestedSourceAddresses: given }),
    ).toMatchObject({ sourceAddresses: given, warnings: [] });
    const p = plan({
      maxConnections: 100_000,
      loopbackTarget: false,
      requestedSourceAddresses: given,
    });
    expect(p.sourceAddresses).toEqual(given);
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0]).toContain('2 source addresses');
  });

  it('an unknown port range plans no addresses', () => {
    expect(
      plan({
        maxConnections: 1_000_000,
        limits: { openFilesPerProcess: null, portRange: null, ephemeralPorts: null },
      }),
    ).toMatchObject({
      sourceAddresses: [],
      warnings: [],
    });
  });

  it('a port range no larger than the reserve still plans (no crash, no negative counts)', () => {
    const small: GeneratorLimits = {
      openFilesPerProcess: null,
      portRange: [60000, 60999],
      ephemeralPorts: 1000,
    };
    const p = plan({ maxConnections: 100, limits: small });
    expect(p.sourceAddresses).toEqual([]);
    const many = plan({ maxConnections: 1200, limits: small });
    expect(many.sourceAddresses.length).toBeGreaterThan(1);
    expect(many.sourceAddresses.length).toBeLessThan(10);
    const remote = plan({ maxConnections: 1200, loopbackTarget: false, limits: small });
    expect(remote.warnings).toHaveLength(1);
  });
});

describe('planGenerator: loopback addresses over all of 127/8', () => {
  it('the nth address counts through 127.0.0.1 … 127.255.255.254', () => {
    expect([1, 254, 255, 256, 1417, MAX_LOOPBACK_ADDRESSES].map(loopbackAddress)).toEqual([
      '127.0.0.1',
      '127.0.0.254',
      '127.0.0.255',
      '127.0.1.0',
      '127.0.5.137',
      '127.255.255.254',
    ]);
  });

  it('10,000,000 connections plan 1,417 valid addresses (not 127.0.0.1417)', () => {
    const p = plan({ maxConnections: 10_000_000 });
    expect(p.sourceAddresses).toHaveLength(1417);
    expect(p.loopbackAddressesNeeded).toBe(1417);
    expect(p.sourceAddresses.at(-1)).toBe('127.0.5.137');
    expect(
      p.sourceAddresses.every((a) => /^127(\.(\d|[1-9]\d|1\d\d|2[0-4]\d|25[0-5])){3}$/.test(a)),
    ).toBe(true);
  });

  it('counted, not listed, for the host-fit check: past 127/8 nothing is made', () => {
    const p = plan({ maxConnections: 1.2e11, listAddresses: false });
    expect(p.sourceAddresses).toEqual([]);
    expect(p.loopbackAddressesNeeded).toBe(Math.ceil(1.2e11 / LOOPBACK_PER_ADDRESS));
    expect(p.loopbackAddressesNeeded).toBeGreaterThan(MAX_LOOPBACK_ADDRESSES);
  });

  it('a link takes two ports per connection: twice the addresses', () => {
    expect(plan({ maxConnections: 50_000 }).sourceAddresses).toHaveLength(8);
    expect(plan({ maxConnections: 50_000, portsPerConnection: 2 }).sourceAddresses).toHaveLength(
      15,
    );
  });
});
