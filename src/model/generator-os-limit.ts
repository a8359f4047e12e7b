/**
 * rtcap's own processes' OS limits (RunResult.generator.limits) and how many source addresses
 * they connected from (RunResult.generator.source_addresses; none given: the kernel's one), and
 * the limit of theirs an errno names.
 */
import type { Limit } from './limit.js';

/** rtcap's own processes' limits, to number a generator's limit; null when not read. */
export type GeneratorOs = {
  open_files_per_process: number | null;
  ephemeral_ports: number | null;
  source_addresses?: number;
} | null;

/**
 * The generator's own OS limit an errno names, with its number: out of descriptors (EMFILE,
 * ENFILE: the per-process open-file limit) or of ephemeral ports (EADDRNOTAVAIL, EADDRINUSE: per
 * source address). Null when the errno names neither or the number is not known. One reading for
 * a step's limit and a second's (model/second-limit), so both word it alike.
 */
export function generatorOsLimit(
  errno: string,
  os: GeneratorOs | undefined,
): Extract<Limit, { kind: 'environment' }> | null {
  if ((errno === 'EMFILE' || errno === 'ENFILE') && os?.open_files_per_process) {
    return {
      kind: 'environment',
      resource: 'open files',
      process: 'generator',
      limit: os.open_files_per_process,
    };
  }
  if ((errno === 'EADDRNOTAVAIL' || errno === 'EADDRINUSE') && os?.ephemeral_ports) {
    return {
      kind: 'environment',
      resource: 'ephemeral ports',
      process: 'generator',
      limit: os.ephemeral_ports,
      addresses: Math.max(1, os.source_addresses ?? 1),
    };
  }
  return null;
}
