/**
 * Network namespaces for tests of runs split over machines: one namespace for the server and
 * one per segment, each with its own address, loopback, ephemeral port range and open-file
 * limit, joined by a bridge in the server's namespace (one veth pair per segment). Processes are
 * started inside a namespace with `ip netns exec`.
 *
 * Names are unique per test process (`rtcapt-<pid>-<random>-…`); every namespace (and the
 * links inside it, which go with it) is deleted by `destroy()`, on process exit, and at the
 * next creation when its owner's pid is gone (a test killed with kill -9).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const PREFIX = 'rtcapt-';
/** The bridge's subnet; it exists only inside this run's namespaces, so runs never collide. */
const SUBNET = '10.211.0';
export const SERVER_ADDRESS = `${SUBNET}.1`;

function ip(args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why namespaces cannot be used here, or null when they can (root, Linux, `ip netns` works). */
export function netnsUnavailable(): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not root (ip netns add needs CAP_SYS_ADMIN)';
  const probe = `${PREFIX}probe-${process.pid}`;
  const add = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (add.error) return `the ip command could not run: ${add.error.message}`;
  if (add.status !== 0) return `ip netns add failed: ${add.stderr.trim()}`;
  const veth = spawnSync(
    'ip',
    ['-n', probe, 'link', 'add', 'a0', 'type', 'veth', 'peer', 'name', 'b0'],
    { encoding: 'utf8' },
  );
  spawnSync('ip', ['netns', 'delete', probe]);
  if (veth.status !== 0) return `veth pairs unavailable: ${veth.stderr.trim()}`;
  return null;
}

/** Deletes namespaces of earlier test processes that are gone (killed before clean-up). */
function sweepOrphans(): void {
  let list: string;
  try {
    list = ip(['netns', 'list']);
  } catch {
    return;
  }
  for (const line of list.split('\n')) {
    const name = line.split(' ')[0];
    const m = new RegExp(`^${PREFIX}(?:probe-)?(\\d+)`).exec(name);
    if (!m || Number(m[1]) === process.pid) continue;
    try {
      process.kill(Number(m[1]), 0);
    } catch {
      spawnSync('ip', ['netns', 'delete', name]);
    }
  }
}

export interface Segment {
  ns: string;
  address: string;
  /** Its ephemeral port range, e.g. "41000 41999". */
  portRange: string;
}

export class NetnsTopology {
  readonly server: string;
  readonly segments: Segment[] = [];
  private readonly created: string[] = [];
  private readonly onExit = () => this.destroy();

  private constructor(readonly tag: string) {
    this.server = `${PREFIX}${tag}-srv`;
  }

  /**
   * The server's namespace with a bridge at SERVER_ADDRESS/24 and `count` segment namespaces,
   * segment i at .(10 + i) with ports 41000 + 1000·i … +999. Throws (after deleting what it
   * made) when a command fails.
   */
  static create(count: number): NetnsTopology {
    sweepOrphans();
    const t = new NetnsTopology(`${process.pid}-${randomBytes(3).toString('hex')}`);
    process.once('exit', t.onExit);
    try {
      t.addNamespace(t.server);
      ip(['-n', t.server, 'link', 'add', 'br0', 'type', 'bridge']);
      ip(['-n', t.server, 'addr', 'add', `${SERVER_ADDRESS}/24`, 'dev', 'br0']);
      ip(['-n', t.server, 'link', 'set', 'br0', 'up']);
      for (let i = 0; i < count; i++) t.addSegment(i);
    } catch (e) {
      t.destroy();
      throw e;
    }
    return t;
  }

  private addNamespace(ns: string): void {
    ip(['netns', 'add', ns]);
    this.created.push(ns);
    ip(['-n', ns, 'link', 'set', 'lo', 'up']);
  }

  private addSegment(i: number): void {
    const ns = `${PREFIX}${this.tag}-s${i}`;
    this.addNamespace(ns);
    // Link names are per namespace: the same names in every run never collide.
    const port = `s${i}`;
    ip([
      '-n',
      this.server,
      'link',
      'add',
      port,
      'type',
      'veth',
      'peer',
      'name',
      'eth0',
      'netns',
      ns,
    ]);
    ip(['-n', this.server, 'link', 'set', port, 'master', 'br0', 'up']);
    const address = `${SUBNET}.${10 + i}`;
    ip(['-n', ns, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
    ip(['-n', ns, 'link', 'set', 'eth0', 'up']);
    const lo = 41000 + 1000 * i;
    const portRange = `${lo} ${lo + 999}`;
    execFileSync('ip', [
      'netns',
      'exec',
      ns,
      'sysctl',
      '-q',
      '-w',
      `net.ipv4.ip_local_port_range=${portRange}`,
    ]);
    this.segments.push({ ns, address, portRange });
  }

  /**
   * argv that runs `cmd` inside namespace `ns`, under an open-file limit of its own when given
   * (prlimit: soft and hard).
   */
  exec(ns: string, cmd: string[], openFiles?: number): [string, string[]] {
    const limited = openFiles
      ? ['prlimit', `--nofile=${openFiles}:${openFiles}`, '--', ...cmd]
      : cmd;
    return ['ip', ['netns', 'exec', ns, ...limited]];
  }

  /** Namespaces of this topology that still exist (for the clean-up check). */
  existing(): string[] {
    const list = ip(['netns', 'list']);
    return this.created.filter((ns) => new RegExp(`^${ns}( |$)`, 'm').test(list));
  }

  /** Deletes every namespace made (their veth ends and the bridge go with them). Idempotent. */
  destroy(): void {
    for (const ns of this.created.splice(0).reverse()) spawnSync('ip', ['netns', 'delete', ns]);
    process.off('exit', this.onExit);
  }
}
