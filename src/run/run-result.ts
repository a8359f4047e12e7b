/**
 * The run's result.json as it starts, and how it is saved with its artefacts after every change.
 */
import os from 'node:os';
import type { Profile } from '../profile/schema.js';
import { RESULT_SCHEMA, type RunResult, type RunStatus } from '../result/result.js';
import type { RunWriter } from './output.js';
import { rtcapVersion } from '../util/paths.js';

/** What is known before anything started: the profile, the target as declared, this host. */
export function initialResult(args: {
  runId: string;
  startedAt: Date;
  profile: Profile;
  profilePath: string | null;
  redactedProfile: unknown;
  builtin: boolean;
  serverCpus: string | null;
  generatorCpus: string | null;
  previousSteps?: RunResult['steps'];
}): RunResult {
  const { profile } = args;
  return {
    schema: RESULT_SCHEMA,
    run_id: args.runId,
    status: 'running',
    abort_reason: null,
    started_at: args.startedAt.toISOString(),
    finished_at: null,
    rtcap_version: rtcapVersion(),
    profile: {
      name: profile.name,
      scenario: profile.scenario,
      path: args.profilePath,
      resolved: args.redactedProfile,
    },
    target: {
      url: '',
      builtin: args.builtin,
      vsn: profile.target.vsn,
      dialect: profile.target.dialect,
      topic: profile.target.topic,
      instance: profile.target.instance,
      cpus: args.serverCpus,
      server_sampling: null,
    },
    generator: {
      workers: 0,
      cpus: args.generatorCpus,
      source_addresses: [],
      limits: { open_files_per_process: null, ephemeral_ports: null, port_range: null },
      host: {
        cores: os.cpus().length,
        memory_mb: Math.round(os.totalmem() / 1048576),
        node: process.version,
        platform: `${os.platform()} ${os.release()}`,
      },
    },
    slo: profile.slo,
    steps: [...(args.previousSteps ?? [])],
  };
}

/** The run's status as it goes; `save` copies it into the result. */
export interface RunState {
  status: RunStatus;
  abortReason: string | null;
  /** Aborted by an abort_on_fail threshold: the run exits 99 (a threshold failed), not 3. */
  stoppedByThreshold?: boolean;
}

/**
 * Writes result.json (with its analysis), summary.md and, when asked, the other artefacts
 * (report.html: charts, the costliest thing a run renders). A renderer that fails is logged,
 * never fatal: result.json is the evidence and is always written.
 */
export function resultSaver(args: {
  result: RunResult;
  state: RunState;
  writer: RunWriter;
  log: (line: string) => void;
  analyze?: (r: RunResult) => unknown;
  renderSummary?: (r: RunResult) => string;
  renderArtifacts?: (r: RunResult, dir: string) => void;
}): (opts?: { artifacts?: boolean }) => void {
  const { result, state, writer, log } = args;
  return ({ artifacts = true } = {}) => {
    result.status = state.status;
    result.abort_reason = state.abortReason;
    if (args.analyze) {
      try {
        result.analysis = args.analyze(result);
      } catch (e) {
        log(`warning: the analysis could not be computed: ${(e as Error).message}`);
      }
    }
    writer.writeResult(result);
    if (args.renderSummary) {
      try {
        writer.writeText('summary.md', args.renderSummary(result));
      } catch (e) {
        log(`warning: summary.md could not be rendered: ${(e as Error).message}`);
      }
    }
    if (artifacts && args.renderArtifacts) {
      try {
        args.renderArtifacts(result, writer.dir);
      } catch (e) {
        writer.noteFailure(e);
        log(`warning: report artefacts could not be rendered: ${(e as Error).message}`);
      }
    }
  };
}
