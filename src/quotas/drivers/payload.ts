/**
 * max_payload_size_in_kb: a payload just below, one just above, then bisection to the smallest
 * refused size (the target refuses a JSON payload over kb × 1000 + 500 bytes), then below again.
 */
import { nowMs } from '../../measure/clock.js';
import { EV } from '../../protocol/constants.js';
import { QConn } from '../../client/qconn.js';
import { judgeQuota, type QuotaPhases } from '../judge.js';
import { Ledger } from '../ledger.js';
import { Pool, QuotaAbort, refusalOf } from '../pool.js';
import type { Quotas } from '../../profile/schema.js';
import type { QuotaRow } from '../../result/quotas.js';
import { num, pct } from '../vocabulary.js';
import { type QuotaCheckOptions } from './types.js';

/**
 * A broadcast push payload whose JSON is exactly `bytes` long (ASCII), as the target measures it.
 */
export function payloadOfSize(bytes: number): Record<string, unknown> {
  const base = JSON.stringify({ type: EV.broadcast, event: 'quota', payload: { p: '' } }).length;
  return {
    type: EV.broadcast,
    event: 'quota',
    payload: { p: 'x'.repeat(Math.max(0, bytes - base)) },
  };
}

const TOPIC = 'realtime:rtcap-quota-payload';

/** The sizes probed, in bytes of a push's JSON, from the declared `kb`. */
interface PayloadSizes {
  kb: number;
  /** The target refuses a payload over kb × 1000 + 500 bytes. */
  limitBytes: number;
  belowBytes: number;
  aboveBytes: number;
}

/** One connection joined to the check's topic, with acks so that every push is answered. */
async function joinedConnection(pool: Pool): Promise<QConn> {
  const c = await pool.open();
  if (!(c instanceof QConn)) throw new QuotaAbort(`payload check: cannot connect: ${c.reason}`);
  const j = await c.join(TOPIC, { broadcast: { ack: true, self: false } });
  if (!j.ok) throw new QuotaAbort(`payload check: join refused: ${refusalOf(j.reason)}`);
  return c;
}

/**
 * Bisection: the smallest refused size, to 0.05 % of the limit (about 12 probes), between the
 * largest accepted and the smallest refused so far; null when below and above were both accepted.
 */
async function smallestRefused(
  probe: (bytes: number) => Promise<boolean>,
  sizes: PayloadSizes,
  belowOk: boolean,
  aboveOk: boolean,
): Promise<number | null> {
  let lo = belowOk ? sizes.belowBytes : 0;
  let hi = aboveOk ? null : sizes.aboveBytes;
  if (!belowOk) hi = sizes.belowBytes;
  if (hi === null) return null;
  for (let i = 0; i < 24 && hi - lo > Math.max(1, sizes.limitBytes * 0.0005); i++) {
    const mid = Math.floor((lo + hi) / 2);
    if (await probe(mid)) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * The three phases between the probes' times t0..t3; one probe of an exact size per phase, so
 * what was offered is what was planned.
 */
function payloadPhases(
  ledger: Ledger,
  probed: { t: readonly [number, number, number, number]; recovered: boolean },
  sizes: PayloadSizes,
  q: Quotas,
): QuotaPhases {
  const [t0, t1, t2, t3] = probed.t;
  const { kb, limitBytes, belowBytes, aboveBytes } = sizes;
  const below = ledger.phase(t0, t1, {
    load: `${num(belowBytes)} B (${pct(q.below)} of ${num(kb)} KB)`,
    target: belowBytes,
    offered: belowBytes,
  });
  const above = ledger.phase(t1, t2, {
    load: `${num(aboveBytes)} B (${pct(q.above)} of the ${num(limitBytes)} B limit)`,
    target: aboveBytes,
    offered: aboveBytes,
  });
  const rec = ledger.phase(t2, t3 + 1, {
    load: `${num(belowBytes)} B`,
    target: belowBytes,
    offered: belowBytes,
  });
  const recovery = {
    ...rec,
    recovered_after_ms: probed.recovered ? t3 - t2 : null,
    window_ms: q.error_backoff + 1000,
  };
  return { below, above, recovery };
}

export async function checkPayload(o: QuotaCheckOptions, kb: number): Promise<QuotaRow> {
  const q = o.quotas;
  const limitBytes = kb * 1000 + 500;
  const sizes: PayloadSizes = {
    kb,
    limitBytes,
    belowBytes: Math.floor(q.below * kb * 1000),
    aboveBytes: Math.ceil(q.above * limitBytes),
  };
  const pool = new Pool(o.target);
  const ledger = new Ledger();
  try {
    const c = await joinedConnection(pool);
    const probe = async (bytes: number): Promise<boolean> => {
      const at = nowMs();
      const r = await c.push(TOPIC, EV.broadcast, payloadOfSize(bytes), true);
      if (r.ok) ledger.accept(at);
      else ledger.reject(r.reason ?? 'error', at);
      return r.ok;
    };
    const t0 = nowMs();
    const belowOk = await probe(sizes.belowBytes);
    const t1 = nowMs();
    const aboveOk = await probe(sizes.aboveBytes);
    const onset = await smallestRefused(probe, sizes, belowOk, aboveOk);
    const t2 = nowMs();
    const recovered = await probe(sizes.belowBytes);
    const t3 = nowMs();
    return judgeQuota({
      quota: 'max_payload_size_in_kb',
      declared: kb,
      expectedOnset: limitBytes,
      settings: q,
      phases: payloadPhases(ledger, { t: [t0, t1, t2, t3], recovered }, sizes, q),
      onset,
    });
  } finally {
    await pool.closeAll();
  }
}
