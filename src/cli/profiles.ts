/**
 * Profiles for editors and CI: `rtcap schema` prints the profile's JSON Schema (generated from
 * the zod schema, src/profile/json-schema.ts) and `rtcap validate PROFILE…` checks profiles
 * exactly as `rtcap run` loads them, without running anything: the same line-numbered errors,
 * exit 2 when any profile has one.
 */
import type { Argv } from 'yargs';
import { profileJsonSchemaText } from '../profile/json-schema.js';
import { EXIT } from '../run/runner.js';
import { loadProfileOrExit } from './shared.js';

export function schemaCommand(y: Argv): Argv {
  return y.command(
    'schema',
    'print the JSON Schema of profiles (for editors: `# yaml-language-server: $schema=…`)',
    (c) => c,
    () => {
      process.stdout.write(profileJsonSchemaText());
    },
  );
}

export function validateCommand(y: Argv): Argv {
  return y.command(
    'validate <profiles..>',
    'check profiles without running them (exit 2 on any problem, with its line)',
    (c) =>
      c
        .positional('profiles', { type: 'string', array: true, demandOption: true, describe: 'profile YAML files' })
        .option('set', { type: 'string', array: true, default: [] as string[], describe: 'override a profile field, as for run: --set load.join_rate=50' }),
    async (args) => {
      let failed = 0;
      const paths = args.profiles as string[];
      for (const path of paths) {
        // loadProfileOrExit prints the problems to stderr and sets exit code 2.
        if (await loadProfileOrExit(path, args.set as string[])) process.stdout.write(`${path}: ok\n`);
        else failed++;
      }
      process.exitCode = failed > 0 ? EXIT.usage : EXIT.ok;
    },
  );
}
