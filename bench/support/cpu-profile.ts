/**
 * A .cpuprofile (V8's format, what `node --cpu-prof` and the inspector's Profiler.stop write)
 * summarised for a bench: the share of busy samples (idle left out) by where the code lives
 * (rtcap, ws, Node's own JavaScript, native bindings, garbage collection, and "(program)": native
 * code outside JavaScript, libuv's polling and reads among it), the functions with the most self
 * time, and the functions with the most inclusive time (each sample counted once per function on
 * its stack).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface ProfileSummary {
  busySamples: number;
  byArea: [area: string, share: number][];
  self: [fn: string, share: number][];
  inclusive: [fn: string, share: number][];
}

function areaOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : `native ${name}`;
  if (url.includes('/node_modules/ws/')) return 'ws';
  if (url.includes('/node_modules/')) return 'other packages';
  const src = /\/src\/([a-z-]+)\//.exec(url);
  if (src) return `rtcap src/${src[1]}`;
  if (url.startsWith('node:')) return `node ${url.replace(/^node:(internal\/)?/, '')}`;
  return 'other';
}

function label(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url ? url.replace(/^.*\/(node_modules\/|src\/|bench\/)/, '$1') : '';
  return file ? `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}` : functionName;
}

function shares(m: Map<string, number>, total: number, top: number): [string, number][] {
  return [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, v]) => [k, v / total]);
}

export function summariseProfile(file: string, top = 25): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const area = new Map<string, number>();
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  let busy = 0;
  for (const n of p.nodes) {
    const hits = n.hitCount ?? 0;
    if (hits === 0 || n.callFrame.functionName === '(idle)') continue;
    busy += hits;
    const a = areaOf(n.callFrame.url, n.callFrame.functionName);
    area.set(a, (area.get(a) ?? 0) + hits);
    self.set(label(n), (self.get(label(n)) ?? 0) + hits);
    const seen = new Set<string>();
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const l = label(byId.get(id)!);
      if (l === '(root)' || seen.has(l)) continue;
      seen.add(l);
      incl.set(l, (incl.get(l) ?? 0) + hits);
    }
  }
  return {
    busySamples: busy,
    byArea: shares(area, busy, 20),
    self: shares(self, busy, top),
    inclusive: shares(incl, busy, top),
  };
}

export function printSummary(title: string, s: ProfileSummary): void {
  const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)} %`;
  console.log(`\n### ${title}: ${s.busySamples} busy samples\n`);
  console.log('by area:');
  for (const [k, v] of s.byArea) console.log(`  ${pct(v)}  ${k}`);
  console.log('self time:');
  for (const [k, v] of s.self) console.log(`  ${pct(v)}  ${k}`);
  console.log('inclusive time:');
  for (const [k, v] of s.inclusive) console.log(`  ${pct(v)}  ${k}`);
}
