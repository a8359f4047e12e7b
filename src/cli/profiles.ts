/**
 * The files rtcap reads, for editors and CI: `rtcap schema [--kind profile|campaign|workload]`
 * prints a JSON Schema (generated from the zod schema, src/profile/json-schema.ts) and
 * `rtcap validate FILE…` checks profiles, campaigns (with every entry's profile) and workloads
 * exactly as the commands that read them do, without running anything (src/validate/file-check.ts):
 * the same line-numbered errors, exit 2 when any file has one. A `${VAR}` not set here is
 * named, not refused; what `rtcap run` would refuse on this host (no netem for a link's loss, a
 * generator this machine cannot hold) is a warning on stderr, exit 0: a fact of the host, not of
 * the file.
 */
import type { Argv } from 'yargs';
import { jsonSchemaText } from '../profile/json-schema.js';
import { checkFile, FILE_KINDS, fileJsonSchema } from '../validate/file-check.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, oneOf } from './flags.js';

export function schemaCommand(y: Argv): Argv {
  return y.command(
    'schema',
    'print the JSON Schema of profiles, campaigns or workloads (for editors: `# yaml-language-server: $schema=…`)',
    (c) =>
      c.option(
        'kind',
        checked('kind', oneOf(FILE_KINDS), {
          default: 'profile',
          describe: `which file: ${FILE_KINDS.join(', ')}`,
        }),
      ),
    (args) => {
      process.stdout.write(jsonSchemaText(fileJsonSchema(args.kind)));
    },
  );
}

export function validateCommand(y: Argv): Argv {
  return y.command(
    'validate <files..>',
    'check profiles, campaigns and workloads without running them (exit 2 on any problem, with its line)',
    (c) =>
      c
        .positional('files', {
          type: 'string',
          array: true,
          demandOption: true,
          describe: 'profile, campaign or workload YAML files',
        })
        .option(
          'kind',
          checked('kind', oneOf(FILE_KINDS), {
            describe: "the files' kind (default: told from each file's fields)",
          }),
        )
        .option('set', {
          type: 'string',
          array: true,
          default: [] as string[],
          describe: 'override a profile field, as for run: --set load.join_rate=50',
        }),
    async (args) => {
      let failed = 0;
      for (const path of args.files as string[]) {
        const r = await checkFile(path, { kind: args.kind, sets: args.set as string[] });
        if (r.problems.length) {
          failed++;
          process.stderr.write(r.problems.join('\n') + '\n');
          continue;
        }
        const kind = r.kind === 'profile' ? '' : ` (${r.kind})`;
        const unset = r.unset.length
          ? ` — not set here, so their fields were not checked: ${[...new Set(r.unset)].join(', ')}`
          : '';
        process.stdout.write(`${path}: ok${kind}${unset}\n`);
        // A host fact warns, it does not fail: the file is good, this machine cannot run it.
        for (const why of r.hostRefusals)
          process.stderr.write(`${path}: warning: rtcap run refuses it on this host: ${why}\n`);
      }
      process.exitCode = failed > 0 ? EXIT.usage : EXIT.ok;
    },
  );
}
