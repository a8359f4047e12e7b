/** The open connections of one quota check: heartbeats while it runs, all closed at its end. */
import { QConn, type QConnEvents, type QuotaTarget } from '../client/qconn.js';
import { sleep } from '../util/sleep.js';

/** A check that cannot run at all (cannot connect, first join refused): the run stops with this. */
export class QuotaAbort extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuotaAbort';
  }
}

export function refusalOf(reason: string): string {
  return reason.replace(/^join refused: /, '');
}

export class Pool {
  readonly all = new Set<QConn>();
  private seq = 0;
  private readonly hb: NodeJS.Timeout;
  constructor(
    readonly target: QuotaTarget,
    heartbeatMs = 20_000,
  ) {
    this.hb = setInterval(() => {
      for (const c of this.all) c.heartbeat();
    }, heartbeatMs);
    this.hb.unref();
  }
  async open(events: QConnEvents = {}): Promise<QConn | { reason: string; sentAtMs: number }> {
    const o = await QConn.open(this.seq++, this.target, events);
    if (!o.ok) return { reason: o.reason, sentAtMs: o.sentAtMs };
    this.all.add(o.conn);
    return o.conn;
  }
  drop(c: QConn): void {
    this.all.delete(c);
    c.close();
  }
  async closeAll(): Promise<void> {
    clearInterval(this.hb);
    for (const c of this.all) c.close();
    this.all.clear();
    await sleep(100);
  }
}
