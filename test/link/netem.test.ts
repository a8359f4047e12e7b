/**
 * The command lines of the netem path. They cannot run on a kernel without sch_netem (this
 * project's CI machine has none), so what they would run is checked here, word for word.
 */
import { describe, expect, it } from 'vitest';
import {
  deadLinkNamespaces,
  launcherOf,
  netemArgs,
  netemPlan,
  setupCommands,
  teardownCommand,
} from '../../src/link/netem.js';

const spec = { delay: 50, jitter: 5, loss: 0.5 };

describe('netem link commands', () => {
  it('names the namespace after the pid and picks a /30 of 10.213.0.0/16 by it', () => {
    const p = netemPlan(4_242);
    expect(p).toEqual({
      ns: 'rtcapl-4242',
      hostDev: 'rtl1092h',
      nsDev: 'eth0',
      // slot 4242 = 66 × 64 + 18 → 10.213.66.72/30
      hostAddress: '10.213.66.73',
      nsAddress: '10.213.66.74',
    });
    // The largest pid Linux hands out still gives a device name within IFNAMSIZ (15).
    expect(netemPlan(4_194_304).hostDev.length).toBeLessThanOrEqual(15);
    // Two live pids never share a subnet unless 16,384 apart.
    expect(netemPlan(100).hostAddress).not.toBe(netemPlan(101).hostAddress);
  });

  it('gives netem delay, jitter and loss for one direction', () => {
    expect(netemArgs(spec)).toEqual(['netem', 'delay', '50ms', '5ms', 'loss', '0.5%']);
    expect(netemArgs({ delay: 20, jitter: 0, loss: 0 })).toEqual(['netem', 'delay', '20ms']);
  });

  it('sets up the namespace, the veth pair and netem on both ends, in order', () => {
    const p = netemPlan(4_242);
    expect(setupCommands(p, spec).map((a) => a.join(' '))).toEqual([
      'ip netns add rtcapl-4242',
      'ip -n rtcapl-4242 link set lo up',
      'ip link add rtl1092h type veth peer name eth0 netns rtcapl-4242',
      'ip addr add 10.213.66.73/30 dev rtl1092h',
      'ip link set rtl1092h up',
      'ip -n rtcapl-4242 addr add 10.213.66.74/30 dev eth0',
      'ip -n rtcapl-4242 link set eth0 up',
      'tc qdisc add dev rtl1092h root netem delay 50ms 5ms loss 0.5%',
      'ip netns exec rtcapl-4242 tc qdisc add dev eth0 root netem delay 50ms 5ms loss 0.5%',
    ]);
    expect(teardownCommand(p.ns).join(' ')).toBe('ip netns delete rtcapl-4242');
    expect(launcherOf(p)).toEqual(['ip', 'netns', 'exec', 'rtcapl-4242']);
  });

  it('finds the namespaces of runs that are gone, and only rtcap link ones', () => {
    const list = [
      'rtcapl-100 (id: 3)',
      'rtcapl-200',
      'rtcapl-probe-300',
      'rtcapt-400-abc-srv',
      'other',
      '',
    ].join('\n');
    const alive = (pid: number) => pid === 200;
    expect(deadLinkNamespaces(list, alive)).toEqual(['rtcapl-100', 'rtcapl-probe-300']);
  });
});
