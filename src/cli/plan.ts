/**
 * `rtcap plan --capacity capacity.json [--capacity ...] --workload WORKLOAD.yaml`: instances of
 * the measured size a workload needs, the binding dimension, headroom and arithmetic; with
 * tables of several sizes, capacity against size and up vs out. Exit 0 when the workload can be
 * carried, 1 when no instance count carries it, 2 on a file error.
 */
import { readFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import { CAPACITY_FILE_SCHEMA, type CapacityFile } from '../capacity/types.js';
import { ProfileError } from '../profile/load.js';
import { loadYamlFile } from '../profile/yaml-file.js';
import { planInstances } from '../plan/instances.js';
import { adviseScaling } from '../plan/scaling.js';
import { workloadSchema, type Workload } from '../plan/workload.js';
import { renderPlanMarkdown, renderScalingMarkdown } from '../report/plan.js';
import { EXIT } from '../run/runner.js';

function readCapacity(path: string): CapacityFile | string {
  try {
    const f = JSON.parse(readFileSync(path, 'utf8')) as CapacityFile;
    if (f.schema !== CAPACITY_FILE_SCHEMA || !Array.isArray(f.rows)) return `${path}: not an rtcap capacity table (schema ${JSON.stringify(f.schema)}, expected ${CAPACITY_FILE_SCHEMA})`;
    return f;
  } catch (e) {
    return `${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
}

export function planCommand(y: Argv): Argv {
  return y.command(
    'plan',
    'instances a workload needs from a capacity table; with tables of several sizes, scaling up vs out',
    (c) =>
      c
        .option('capacity', { type: 'string', array: true, demandOption: true, describe: 'capacity.json (from rtcap campaign or rtcap capacity); repeat for several instance sizes' })
        .option('workload', { type: 'string', demandOption: true, describe: 'workload YAML (see profiles/workloads/)' }),
    (args) => {
      const tables: CapacityFile[] = [];
      for (const p of args.capacity as string[]) {
        const t = readCapacity(p);
        if (typeof t === 'string') {
          process.stderr.write(`rtcap plan: ${t}\n`);
          process.exitCode = EXIT.usage;
          return;
        }
        tables.push(t);
      }
      let workload: Workload;
      try {
        workload = loadYamlFile(args.workload as string, workloadSchema);
      } catch (e) {
        if (!(e instanceof ProfileError)) throw e;
        process.stderr.write(`${e.message}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const out = [`# Plan: ${workload.name}`, ''];
      let carried: boolean;
      if (tables.length === 1) {
        const t = tables[0];
        const plan = planInstances(t, workload);
        out.push(renderPlanMarkdown(plan, `${t.target.instance.vcpus} vCPU / ${t.target.instance.memory_mb} MB`));
        carried = plan.instances !== null;
      } else {
        const s = adviseScaling(tables, workload);
        out.push(renderScalingMarkdown(s));
        carried = s.cheapest !== null;
      }
      process.stdout.write(out.join('\n') + '\n');
      process.exitCode = carried ? EXIT.ok : 1;
    },
  );
}
