/**
 * The process on this machine that listens on a TCP port: a server the user started by hand
 * (a Phoenix app, `rtcap serve`) and pointed rtcap at with `--url ws://127.0.0.1:PORT/...`.
 * The kernel's socket tables (/proc/net/tcp, /proc/net/tcp6) give the listening socket's
 * inode; the process holding it has `socket:[inode]` among its /proc/PID/fd links. Only
 * processes this user may inspect are found. Linux only: elsewhere nothing is found.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readProcStat } from './proc.js';

/** TCP state LISTEN in /proc/net/tcp's `st` column. */
const TCP_LISTEN = '0A';

/**
 * Inodes of the sockets listening on `port` in a /proc/net/tcp or tcp6 text, on any local
 * address (a server bound to 0.0.0.0 or :: is reached on 127.0.0.1 too).
 */
export function listeningInodes(tableText: string, port: number): number[] {
  const out: number[] = [];
  for (const line of tableText.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== TCP_LISTEN) continue;
    const localPort = parseInt(f[1].split(':')[1] ?? '', 16);
    const inode = Number(f[9]);
    if (localPort === port && inode > 0) out.push(inode);
  }
  return out;
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Pids (of those we may read) holding one of the socket inodes. */
function holders(inodes: ReadonlySet<number>): number[] {
  const out: number[] = [];
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return out;
  }
  for (const p of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${p}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = readlinkSync(`/proc/${p}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(Number(m[1]))) {
        out.push(Number(p));
        break;
      }
    }
  }
  return out;
}

/**
 * The pid listening on `port` on this machine, or null. When several processes hold the
 * socket (a parent and the workers it shares it with), the one whose parent is not among them:
 * its process tree is the whole server.
 */
export function findListeningPid(port: number): number | null {
  const inodes = new Set([
    ...listeningInodes(readOr('/proc/net/tcp'), port),
    ...listeningInodes(readOr('/proc/net/tcp6'), port),
  ]);
  if (inodes.size === 0) return null;
  const found = holders(inodes);
  if (found.length === 0) return null;
  const set = new Set(found);
  return found.find((pid) => !set.has(readProcStat(pid)?.ppid ?? -1)) ?? found[0];
}
