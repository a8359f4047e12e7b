/**
 * Sizing the load generator for the run (processes, source addresses) against this host's limits.
 */
import {
  planGenerator,
  portsPerAddressOf,
  readLimits,
  type GeneratorPlan,
} from '../generator/limits.js';
import { planBurstWorkers } from '../load/burst-plan.js';
import { hostFitProblem, readHostRoom, tooManyWorkersProblem } from '../load/host-fit.js';
import type { Segment } from '../generator/segment.js';
import type { StepPlan } from '../scenarios/types.js';
import type { RunResult } from '../result/result.js';

/** Plans the generator, records it in the result and logs it. */
export function setUpGenerator(args: {
  maxConnections: number;
  requestedWorkers: number | 'auto';
  requestedSourceAddresses: string[] | undefined;
  loopbackTarget: boolean;
  /** generator.link is set (its relay takes a second port per connection). */
  link: boolean;
  generatorCpus: string | null;
  /**
   * The steps known at the start (a sweep's later steps are checked as they come: run/step-phases).
   */
  plans: StepPlan[];
  /** Cores the generator may use (its --generator-cpus, else the host's). */
  cores: number;
  segment?: Segment;
  result: RunResult;
  log: (line: string) => void;
}): GeneratorPlan {
  const limits = readLimits();
  const gen = planGenerator({
    maxConnections: args.maxConnections,
    requestedWorkers: args.requestedWorkers,
    requestedSourceAddresses: args.requestedSourceAddresses,
    loopbackTarget: args.loopbackTarget,
    limits,
    portsPerConnection: portsPerConnection(args.link),
  });
  if (args.requestedWorkers === 'auto') {
    // One broadcast's burst per process within the lag limit, where the cores allow
    // (load/burst-plan).
    const burst = planBurstWorkers({
      plans: args.plans,
      workers: gen.workers,
      cores: args.cores,
      segment: args.segment,
    });
    if (burst.note) {
      gen.workers = burst.workers;
      gen.maxConnectionsPerWorker = Math.ceil(args.maxConnections / burst.workers);
      args.log(`generator: ${burst.note}`);
    }
  }
  args.result.generator.workers = gen.workers;
  args.result.generator.source_addresses = gen.sourceAddresses.length
    ? gen.sourceAddresses
    : ['(kernel default)'];
  args.result.generator.limits = {
    open_files_per_process: limits.openFilesPerProcess,
    ephemeral_ports: limits.ephemeralPorts,
    port_range: limits.portRange ? `${limits.portRange[0]}-${limits.portRange[1]}` : null,
  };
  args.log(
    `generator: ${gen.workers} process${gen.workers === 1 ? '' : 'es'}${args.generatorCpus ? ` on CPUs ${args.generatorCpus}` : ''}, ` +
      `open-file limit ${limits.openFilesPerProcess ?? 'unknown'} per process, ` +
      `ephemeral ports ${limits.portRange ? `${limits.portRange[0]}–${limits.portRange[1]} (${limits.ephemeralPorts} per source address)` : 'unknown'}, ` +
      `source addresses ${gen.sourceAddresses.length ? gen.sourceAddresses.join(', ') : 'kernel default'}`,
  );
  return gen;
}

/** A run this machine cannot hold: refused before anything starts (exit 2, the numbers). */
export class HostCannotHold extends Error {
  override name = 'HostCannotHold';
  readonly exitCode = 2;
}

/** Ports each connection takes on the source addresses: the link relay dials from them too. */
export const portsPerConnection = (link: boolean): number => (link ? 2 : 1);

/**
 * Why the generator the run needs (its processes, their memory and tasks, source ports, open
 * files) cannot fit on this machine, or null. A split run's machine holds its segment's share.
 */
export function hostCannotHoldWhy(args: {
  maxConnections: number;
  requestedWorkers: number | 'auto';
  requestedSourceAddresses: string[] | undefined;
  loopbackTarget: boolean;
  /** generator.link is set: every connection is relayed through rtcap's own process. */
  link: boolean;
  builtinServer: boolean;
  segments?: number;
}): string | null {
  const limits = readLimits();
  const link = args.link;
  const gen = planGenerator({
    ...args,
    limits,
    portsPerConnection: portsPerConnection(link),
    listAddresses: false,
  });
  const connections = Math.ceil(args.maxConnections / (args.segments ?? 1));
  const listed = args.requestedSourceAddresses?.length ?? (args.loopbackTarget ? 0 : 1);
  const ask = (workers: number) => ({
    connections,
    totalConnections: args.maxConnections,
    workers,
    loopbackAddresses: args.requestedSourceAddresses ? 0 : gen.loopbackAddressesNeeded,
    listedAddresses: listed,
    portsPerAddress: portsPerAddressOf(limits),
    portsPerConnection: args.requestedSourceAddresses ? portsPerConnection(link) : 1,
    link,
    builtinServer: args.builtinServer,
    room: readHostRoom(limits.openFilesPerProcess),
  });
  const problem = hostFitProblem(ask(gen.workers));
  if (problem === null || args.requestedWorkers === 'auto') return problem;
  // Too many processes asked for (--workers, load.workers), not too many connections: said so
  // when the processes rtcap would choose itself fit.
  const auto = planGenerator({
    ...args,
    requestedWorkers: 'auto',
    limits,
    portsPerConnection: portsPerConnection(link),
    listAddresses: false,
  });
  return auto.workers < gen.workers && hostFitProblem(ask(auto.workers)) === null
    ? tooManyWorkersProblem(ask(gen.workers), auto.workers)
    : problem;
}

/**
 * Throws HostCannotHold when the generator the run needs cannot fit on this machine; before the
 * run directory, server or any process.
 */
export function refuseWhatCannotFit(args: Parameters<typeof hostCannotHoldWhy>[0]): void {
  const problem = hostCannotHoldWhy(args);
  if (problem) throw new HostCannotHold(problem);
}
