/**
 * /metrics of a cluster, on the primary: a worker asked for the instance's metrics; every
 * live worker's registry comes back as JSON and the primary sums them with its own.
 * A worker that exits (or does not answer within the wait) is left out, never waited for.
 */
import type { Registry } from 'prom-client';
import { Metrics, type MetricsJson } from '../metrics.js';

/** How long a gathering waits for the workers' parts before summing what it has. */
const GATHER_WAIT_MS = 2000;

interface Gathering {
  parts: MetricsJson[];
  /** Worker nodes whose part has not come yet. */
  waiting: Set<number>;
  done: (text: string) => void;
}

export class MetricsGather {
  private readonly pending = new Map<number, Gathering>();
  private seq = 0;

  constructor(private readonly registry: Registry) {}

  /**
   * Starts a gathering over `nodes`: `ask(id, node)` sends each its request; `done` gets the
   * summed text once every part came, a node exited, or the wait ran out.
   */
  start(nodes: number[], ask: (id: number, node: number) => void, done: (text: string) => void) {
    const id = this.seq++;
    this.pending.set(id, { parts: [], waiting: new Set(nodes), done });
    for (const n of nodes) ask(id, n);
    setTimeout(() => this.finish(id), GATHER_WAIT_MS).unref();
    if (nodes.length === 0) this.finish(id);
  }

  /** One worker's registry as JSON. */
  part(id: number, node: number, json: MetricsJson): void {
    const g = this.pending.get(id);
    if (!g || !g.waiting.delete(node)) return;
    g.parts.push(json);
    if (g.waiting.size === 0) this.finish(id);
  }

  /** A worker exited: no gathering waits for it any more. */
  dropNode(node: number): void {
    for (const [id, g] of this.pending) {
      if (g.waiting.delete(node) && g.waiting.size === 0) this.finish(id);
    }
  }

  private finish(id: number): void {
    const g = this.pending.get(id);
    if (!g) return;
    this.pending.delete(id);
    void this.registry
      .getMetricsAsJSON()
      .then((own) => Metrics.aggregate([...g.parts, own]))
      .then(g.done, (e: Error) => g.done(`# metrics aggregation failed: ${e.message}\n`));
  }
}
