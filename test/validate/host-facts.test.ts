/**
 * What validate warns of is what run refuses, on this host: the same host-fit line for a load no
 * machine of this kind holds, nothing for one it does.
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/profile/load.js';
import { hostRefusals } from '../../src/validate/host-facts.js';
import { hostCannotHoldWhy } from '../../src/run/generator-setup.js';
import { readHostRoom } from '../../src/load/host-fit.js';

const QUICKSTART = join(resolve(import.meta.dirname, '../..'), 'profiles/quickstart.yaml');
const quickstart = async (...sets: string[]) => (await loadProfile(QUICKSTART, { sets })).profile;

describe('hostRefusals', () => {
  it('a small load: none', async () => {
    expect(hostRefusals(await quickstart())).toEqual([]);
  });

  it("10,000,000 connections: run's own refusal line, from the profile's steps", async () => {
    // No traffic: 10,000,000 receivers of 10 messages/s would also be more deliveries than
    // this machine's generator cores read (load/load-bounds), a second line.
    const profile = await quickstart(
      'load.steps.0.connections=10000000',
      'load.steps.0.send_rate=0',
    );
    const refusals = hostRefusals(profile);
    // The memory and descriptors left are read again by each call: compare up to them.
    const run = hostCannotHoldWhy({
      maxConnections: 10_000_000,
      requestedWorkers: 'auto',
      requestedSourceAddresses: undefined,
      loopbackTarget: true,
      link: false,
      builtinServer: true,
    });
    const upToMemory = (l: string | null | undefined) =>
      l?.replace(/> [\d,]+ (MB available|left)/g, '> … $1');
    expect(refusals).toHaveLength(1);
    expect(upToMemory(refusals[0])).toBe(upToMemory(run));
    expect(refusals[0]).toMatch(/^load asks for 10,000,000 connections, more than this machine/);
  });
});

describe('hostCannotHoldWhy: too many processes asked for', () => {
  it('1,024 --workers for 200 connections names the workers, not the connections', () => {
    const ask = {
      maxConnections: 200,
      requestedSourceAddresses: undefined,
      loopbackTarget: true,
      link: false,
      builtinServer: true,
    };
    const why = hostCannotHoldWhy({ ...ask, requestedWorkers: 1024 });
    // 1,024 processes take 40 GB at least: refused on any machine with less memory available.
    const room = readHostRoom(null);
    if (room.memAvailableMb !== null && room.memAvailableMb < 40_000) expect(why).not.toBeNull();
    if (why !== null) {
      expect(why).toMatch(
        /^--workers \/ load\.workers asks for 1,024 generator processes for 200 connections, more than this machine can hold — memory: /,
      );
      expect(why).toMatch(/; lower --workers \(load\.workers\): 1 process would do$/);
      expect(why).not.toContain('lower load.steps.N.connections');
    }
    // The processes rtcap chooses itself fit: nothing to refuse.
    expect(hostCannotHoldWhy({ ...ask, requestedWorkers: 'auto' })).toBeNull();
  });
});
