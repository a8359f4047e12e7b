/**
 * A segment's shard as its run goes: the coordinator hands it every per-second line and each
 * step's collection; it is written (shard.json in the run directory) after every step and at
 * the end, so a segment cut short still leaves what it measured.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import type { SecondStats } from '../generator/ipc.js';
import {
  SHARD_FORMAT,
  SHARD_VERSION,
  type Shard,
  type ShardIdentity,
  type ShardResources,
  type ShardStep,
} from './format.js';
import { writeShard } from './write.js';

/** sha256 of the profile as resolved (secrets replaced): segments of one profile agree on it. */
export function profileHash(redactedProfile: unknown): string {
  return createHash('sha256').update(JSON.stringify(redactedProfile)).digest('hex');
}

export class ShardRecorder {
  readonly shard: Shard;

  constructor(args: { identity: ShardIdentity; workers: number; run: Shard['run'] }) {
    this.shard = {
      format: SHARD_FORMAT,
      version: SHARD_VERSION,
      identity: args.identity,
      host: { hostname: os.hostname(), workers: args.workers, startedAt: new Date().toISOString() },
      run: args.run,
      steps: [],
      seconds: [],
    };
  }

  second(s: SecondStats): void {
    this.shard.seconds.push(s);
  }

  step(step: ShardStep): void {
    this.shard.steps.push(step);
  }

  /**
   * The resources sampled so far (the samplers' live arrays: written as they are at each write).
   */
  resources(r: ShardResources): void {
    this.shard.resources = r;
  }

  write(path: string, status: string, abortReason: string | null, finishedAt: string | null): void {
    Object.assign(this.shard.run, { status, abortReason, finishedAt });
    writeShard(path, this.shard);
  }
}
