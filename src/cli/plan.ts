/**
 * `rtcap plan [--capacity capacity.json ...] --workload WORKLOAD.yaml`: instances of the measured
 * size a workload needs, the binding dimension, headroom and arithmetic, and — where a setting
 * limits a row — the plan with its docs/METHOD.md §8 recommendation applied; with tables of several
 * sizes, capacity against size and up vs out. Without --capacity it reads the newest
 * reports/<dir>/capacity.json and says which. Exit 0 when the workload can be carried (with
 * today's settings or the recommended ones), 4 when no instance count carries it, 2 on a file error
 * (src/util/exit-codes.ts).
 */
import { readFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import { CAPACITY_FILE_SCHEMA, type CapacityFile } from '../capacity/types.js';
import { ProfileError } from '../profile/errors.js';
import { loadYamlFile } from '../profile/yaml-file.js';
import { planKnobs } from '../plan/knobs.js';
import { newestCapacityFile } from '../plan/newest-capacity.js';
import { adviseScaling } from '../plan/scaling.js';
import { workloadSchema, type Workload } from '../plan/workload.js';
import { renderKnobsMarkdown, renderPlanMarkdown, renderScalingMarkdown } from '../report/plan.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, file, fileOrDirWith } from './flags.js';

/** Where `rtcap campaign` writes by default (relative to the working directory). */
const REPORTS_DIR = 'reports';

function readCapacity(path: string): CapacityFile | string {
  let f: CapacityFile;
  try {
    f = JSON.parse(readFileSync(path, 'utf8')) as CapacityFile;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return `--capacity ${path}: ${code ? `cannot read (${code})` : `not JSON (${(e as Error).message})`}`;
  }
  if (f?.schema !== CAPACITY_FILE_SCHEMA || !Array.isArray(f.rows))
    return `--capacity ${path}: not an rtcap capacity table (schema ${JSON.stringify(f?.schema)}, expected ${CAPACITY_FILE_SCHEMA})`;
  return f;
}

/** One line on stderr and exit 2; null, so a step can return it. */
function usage(message: string): null {
  process.stderr.write(`${message}\n`);
  process.exitCode = EXIT.usage;
  return null;
}

/** The --capacity paths given, or the newest reports/<dir>/capacity.json (saying which). */
function capacityPaths(given: string[] | undefined): string[] | null {
  if (given && given.length > 0) return given;
  const newest = newestCapacityFile(REPORTS_DIR);
  if (newest === null)
    return usage(
      `rtcap plan: --capacity not given and no ${REPORTS_DIR}/*/capacity.json to read: run \`rtcap campaign profiles/campaigns/quick.yaml\` or pass --capacity FILE`,
    );
  process.stderr.write(
    `rtcap plan: reading ${newest} (the newest capacity table under ${REPORTS_DIR}/; --capacity FILE reads another)\n`,
  );
  return [newest];
}

/** Every capacity table, or null after naming the first that cannot be read (exit 2). */
function readTables(paths: string[]): CapacityFile[] | null {
  const tables: CapacityFile[] = [];
  for (const p of paths) {
    const t = readCapacity(p);
    if (typeof t === 'string') return usage(`rtcap plan: ${t}`);
    tables.push(t);
  }
  return tables;
}

/** The workload file, or null after printing its problem (exit 2). */
function readWorkload(path: string): Workload | null {
  try {
    return loadYamlFile(path, workloadSchema);
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    return usage(e.message);
  }
}

/**
 * The plan as Markdown lines: with one table, today's settings and the recommended ones; with
 * several sizes, scaling up vs out. `carried`: whether some instance count carries the workload.
 */
function planMarkdown(
  tables: CapacityFile[],
  workload: Workload,
): { out: string[]; carried: boolean } {
  const out = [`# Plan: ${workload.name}`, ''];
  if (tables.length > 1) {
    const s = adviseScaling(tables, workload);
    out.push(renderScalingMarkdown(s));
    return { out, carried: s.cheapest !== null };
  }
  const t = tables[0];
  const size = `${t.target.instance.vcpus} vCPU / ${t.target.instance.memory_mb} MB`;
  const knobs = planKnobs(t, workload);
  if (knobs.knobs.length > 0) out.push("## With today's settings", '');
  out.push(renderPlanMarkdown(knobs.today, size));
  const more = renderKnobsMarkdown(knobs, size);
  if (more) out.push('', more);
  return {
    out,
    carried: knobs.today.instances !== null || (knobs.all?.instances ?? null) !== null,
  };
}

export function planCommand(y: Argv): Argv {
  return y.command(
    'plan',
    'instances a workload needs from a capacity table; with tables of several sizes, scaling up vs out',
    (c) =>
      c
        .option(
          'capacity',
          checked('capacity', fileOrDirWith('capacity.json'), {
            array: true,
            describe:
              'capacity.json (from rtcap campaign or rtcap capacity), or the directory holding it; repeat for several instance sizes; default: the newest reports/*/capacity.json',
          }),
        )
        .option(
          'workload',
          checked('workload', file, {
            demandOption: true,
            describe: 'workload YAML (see profiles/workloads/)',
          }),
        ),
    (args) => {
      const paths = capacityPaths(args.capacity as string[] | undefined);
      const tables = paths && readTables(paths);
      if (!tables) return;
      const workload = readWorkload(args.workload as string);
      if (!workload) return;
      const { out, carried } = planMarkdown(tables, workload);
      process.stdout.write(out.join('\n') + '\n');
      process.exitCode = carried ? EXIT.ok : EXIT.notCarried;
    },
  );
}
