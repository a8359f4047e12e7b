/**
 * Shard serialisation: JSON in which typed arrays travel as base64 of their bytes (exact, NaN
 * kept: unsent sends are NaN) and non-finite numbers (a member still joined leaves at
 * Infinity) as tagged strings, so a shard read back is the same StepCollected the workers sent.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Shard } from './format.js';

/** Tags of encoded values; read.ts reverses them. */
export const TAG_U32 = '$u32';
export const TAG_F64 = '$f64';
export const TAG_NUM = '$num';

function bytesOf(a: Uint32Array | Float64Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
}

function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint32Array) return { [TAG_U32]: bytesOf(value) };
  if (value instanceof Float64Array) return { [TAG_F64]: bytesOf(value) };
  if (typeof value === 'number' && !Number.isFinite(value)) return { [TAG_NUM]: String(value) };
  return value;
}

export function encodeShard(shard: Shard): string {
  return JSON.stringify(shard, replacer);
}

export function writeShard(path: string, shard: Shard): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, encodeShard(shard) + '\n');
}
