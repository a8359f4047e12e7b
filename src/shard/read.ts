/** Reading shards back (write.ts's encoding), refusing other formats and versions. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SHARD_FILE, SHARD_FORMAT, SHARD_VERSION, ShardError, type Shard } from './format.js';
import { TAG_F64, TAG_NUM, TAG_U32 } from './write.js';

function typed<T>(b64: string, make: (buf: ArrayBuffer) => T): T {
  const bytes = Buffer.from(b64, 'base64');
  // Copy into a fresh, aligned ArrayBuffer (a Buffer may sit at any offset of a shared pool).
  const buf = new ArrayBuffer(bytes.length);
  new Uint8Array(buf).set(bytes);
  return make(buf);
}

function reviver(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (typeof o[TAG_U32] === 'string') return typed(o[TAG_U32], (b) => new Uint32Array(b));
    if (typeof o[TAG_F64] === 'string') return typed(o[TAG_F64], (b) => new Float64Array(b));
    if (typeof o[TAG_NUM] === 'string') return Number(o[TAG_NUM]);
  }
  return value;
}

export function decodeShard(text: string, source = 'shard'): Shard {
  let raw: unknown;
  try {
    raw = JSON.parse(text, reviver);
  } catch (e) {
    throw new ShardError(`${source}: not a shard (${(e as Error).message})`);
  }
  const s = raw as Partial<Shard> | null;
  if (!s || s.format !== SHARD_FORMAT)
    throw new ShardError(`${source}: not an rtcap shard (format is not "${SHARD_FORMAT}")`);
  if (s.version !== SHARD_VERSION)
    throw new ShardError(
      `${source}: shard format version ${String(s.version)}, this rtcap reads version ${SHARD_VERSION}`,
    );
  if (!s.identity || !Array.isArray(s.steps) || !Array.isArray(s.seconds))
    throw new ShardError(`${source}: shard without identity, steps or seconds`);
  return s as Shard;
}

export function readShard(path: string): Shard {
  return decodeShard(readFileSync(path, 'utf8'), path);
}

/** Each argument is a shard file or a directory searched (two levels) for shard.json files. */
export function shardPaths(args: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      const st = statSync(p);
      if (st.isDirectory() && depth > 0) walk(p, depth - 1);
      else if (st.isFile() && name === SHARD_FILE) out.push(p);
    }
  };
  for (const a of args) {
    let st;
    try {
      st = statSync(a);
    } catch {
      throw new ShardError(`${a}: no such file or directory`);
    }
    if (st.isDirectory()) walk(a, 2);
    else out.push(a);
  }
  return out;
}
