/**
 * The kernel's path for an emulated link: a network namespace of rtcap's own, joined to the host
 * by a veth pair with the netem qdisc on both ends (delay ± jitter and loss, each direction). The
 * generator processes run inside it (`ip netns exec`) and reach the target through a plain
 * forwarder on the host end (src/link/relay.ts with no delay), so any target the host reaches —
 * the built-in server on loopback included — is reached without routes or NAT.
 *
 * Names carry the coordinator's pid (`rtcapl-<pid>`), so the next run, or `rtcap clean`, deletes a
 * namespace whose owner is gone (a coordinator killed with SIGKILL); deleting the namespace
 * deletes its veth pair and the qdiscs with it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import type { LinkSpec } from './link-config.js';

export const NETNS_PREFIX = 'rtcapl-';

/** The names and addresses of one run's link: a /30 of 10.213.0.0/16 picked by pid. */
export interface NetemPlan {
  ns: string;
  /** The veth end in the host's namespace (at most 15 characters, unique on the host). */
  hostDev: string;
  /** The veth end inside the namespace. */
  nsDev: string;
  hostAddress: string;
  nsAddress: string;
}

export function netemPlan(pid: number): NetemPlan {
  const slot = pid % 16_384;
  const base = `10.213.${slot >> 6}.${(slot & 63) * 4}`.split('.').map(Number);
  const at = (k: number) => `${base[0]}.${base[1]}.${base[2]}.${base[3] + k}`;
  return {
    ns: `${NETNS_PREFIX}${pid}`,
    hostDev: `rtl${pid.toString(16)}h`,
    nsDev: 'eth0',
    hostAddress: at(1),
    nsAddress: at(2),
  };
}

/** netem's arguments for one direction: `delay 50ms 5ms loss 0.5%`. */
export function netemArgs(spec: LinkSpec): string[] {
  const args = ['netem', 'delay', `${spec.delay}ms`];
  if (spec.jitter > 0) args.push(`${spec.jitter}ms`);
  if (spec.loss > 0) args.push('loss', `${spec.loss}%`);
  return args;
}

/** Every command that sets the link up, in order (argv for `ip` / `tc`). */
export function setupCommands(p: NetemPlan, spec: LinkSpec): string[][] {
  const inNs = (cmd: string[]) => ['ip', 'netns', 'exec', p.ns, ...cmd];
  return [
    ['ip', 'netns', 'add', p.ns],
    ['ip', '-n', p.ns, 'link', 'set', 'lo', 'up'],
    ['ip', 'link', 'add', p.hostDev, 'type', 'veth', 'peer', 'name', p.nsDev, 'netns', p.ns],
    ['ip', 'addr', 'add', `${p.hostAddress}/30`, 'dev', p.hostDev],
    ['ip', 'link', 'set', p.hostDev, 'up'],
    ['ip', '-n', p.ns, 'addr', 'add', `${p.nsAddress}/30`, 'dev', p.nsDev],
    ['ip', '-n', p.ns, 'link', 'set', p.nsDev, 'up'],
    // The host → generator direction is delayed on the host's end, the other on the namespace's.
    ['tc', 'qdisc', 'add', 'dev', p.hostDev, 'root', ...netemArgs(spec)],
    inNs(['tc', 'qdisc', 'add', 'dev', p.nsDev, 'root', ...netemArgs(spec)]),
  ];
}

/** What removes the link: the namespace (its veth pair and qdiscs go with it). */
export function teardownCommand(ns: string): string[] {
  return ['ip', 'netns', 'delete', ns];
}

/** argv prefix that runs a command inside the link's namespace. */
export function launcherOf(p: NetemPlan): string[] {
  return ['ip', 'netns', 'exec', p.ns];
}

function run(argv: string[]): void {
  execFileSync(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Why the netem path cannot be used here, or null: root, Linux, namespaces and netem work. */
export function netemUnavailable(): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not root (namespaces and qdiscs need CAP_NET_ADMIN)';
  const probe = `${NETNS_PREFIX}probe-${process.pid}`;
  const add = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (add.error) return `the ip command could not run: ${add.error.message}`;
  if (add.status !== 0) return `ip netns add failed: ${add.stderr.trim()}`;
  try {
    spawnSync('ip', ['-n', probe, 'link', 'set', 'lo', 'up']);
    const tc = spawnSync(
      'ip',
      ['netns', 'exec', probe, 'tc', 'qdisc', 'add', 'dev', 'lo', 'root', 'netem', 'delay', '1ms'],
      { encoding: 'utf8' },
    );
    if (tc.error) return `the tc command could not run: ${tc.error.message}`;
    if (tc.status !== 0) return `tc netem failed: ${tc.stderr.trim().split('\n')[0]}`;
    return null;
  } finally {
    spawnSync('ip', teardownCommand(probe).slice(1));
  }
}

/** One run's netem link, set up; `destroy()` removes it (idempotent; also on process exit). */
export class NetemLink {
  private alive = true;
  private readonly onExit = () => this.destroy();

  private constructor(readonly plan: NetemPlan) {}

  /** Sets the link up; on a failed command removes what was made and throws. */
  static create(spec: LinkSpec, pid: number = process.pid): NetemLink {
    const link = new NetemLink(netemPlan(pid));
    process.once('exit', link.onExit);
    try {
      for (const argv of setupCommands(link.plan, spec)) run(argv);
    } catch (e) {
      link.destroy();
      const why = ((e as { stderr?: Buffer }).stderr?.toString() ?? (e as Error).message).trim();
      throw new Error(`generator.link: setting up the netem link failed: ${why.split('\n')[0]}`, {
        cause: e,
      });
    }
    return link;
  }

  destroy(): void {
    if (!this.alive) return;
    this.alive = false;
    process.off('exit', this.onExit);
    const argv = teardownCommand(this.plan.ns);
    spawnSync(argv[0], argv.slice(1), { stdio: 'ignore' });
  }
}

/** Link namespaces (`rtcapl-<pid>`, probes too) whose owner pid is gone: a killed run's. */
export function deadLinkNamespaces(list: string, alive: (pid: number) => boolean): string[] {
  const dead: string[] = [];
  for (const line of list.split('\n')) {
    const name = line.split(' ')[0];
    const m = new RegExp(`^${NETNS_PREFIX}(?:probe-)?(\\d+)$`).exec(name);
    if (m && !alive(Number(m[1]))) dead.push(name);
  }
  return dead;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Deletes the link namespaces of runs that are gone (`dryRun`: none); returns their names. */
export function removeDeadLinkNamespaces(dryRun = false): string[] {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return [];
  const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  if (list.status !== 0 || typeof list.stdout !== 'string') return [];
  const dead = deadLinkNamespaces(list.stdout, (pid) => pid === process.pid || pidAlive(pid));
  if (dryRun) return dead;
  for (const ns of dead) spawnSync('ip', teardownCommand(ns).slice(1), { stdio: 'ignore' });
  return dead;
}
