/**
 * `rtcap init URL [--kind supabase|realtime|phoenix] [--private] [--topic T] [--out FILE]`:
 * writes a starter profile for the user's own server and prints the set-up that server needs
 * (keys to export, SQL for private channels, quotas that would read as rejections). The
 * profile comes from profile/starter (pure); this file only parses flags and writes.
 */
import { existsSync, writeFileSync } from 'node:fs';
import type { ArgumentsCamelCase, Argv } from 'yargs';
import { buildStarter, STARTER_KINDS, StarterError } from '../profile/starter.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, oneOf, outFile } from './flags.js';

/** The flags of `rtcap init`: the server's URL, its kind, channels, topic and the file. */
function initOptions(c: Argv) {
  return c
    .positional('url', {
      type: 'string',
      demandOption: true,
      describe: 'the server: https://<ref>.supabase.co, ws://HOST:PORT/socket/websocket, …',
    })
    .option(
      'kind',
      checked('kind', oneOf(STARTER_KINDS), {
        describe:
          'supabase (hosted), realtime (self-hosted Supabase Realtime or rtcap serve), phoenix (a plain Phoenix app); inferred when the URL says',
      }),
    )
    .option('private', {
      type: 'boolean',
      default: false,
      describe: 'private (RLS-authorised) channels instead of a public topic',
    })
    .option('topic', {
      type: 'string',
      describe: 'phoenix: the topic to join (default room:lobby)',
    })
    .option(
      'out',
      checked('out', outFile, {
        default: 'rtcap.yaml',
        describe: 'where to write the profile',
      }),
    )
    .option('force', {
      type: 'boolean',
      default: false,
      describe: 'overwrite --out if it exists',
    });
}

type InitArgs = ArgumentsCamelCase<
  ReturnType<typeof initOptions> extends Argv<infer T> ? T : never
>;

function initHandler(args: InitArgs): void {
  const out = args.out;
  if (existsSync(out) && !args.force) {
    process.stderr.write(
      `rtcap init: ${out} exists; choose another --out or add --force to overwrite it\n`,
    );
    process.exitCode = EXIT.usage;
    return;
  }
  let starter;
  try {
    starter = buildStarter({
      url: args.url,
      kind: args.kind,
      private: args.private,
      topic: args.topic,
    });
  } catch (e) {
    if (!(e instanceof StarterError)) throw e;
    process.stderr.write(`rtcap init: ${e.message}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  writeFileSync(out, starter.yaml);
  const lines = [
    `wrote ${out}: a ${starter.kind} profile for ${starter.url}`,
    '',
    'Before the first run:',
  ];
  starter.setup.forEach((s, i) => lines.push(`${i + 1}. ${s.replace(/\n/g, '\n   ')}`));
  lines.push(
    '',
    'Then:',
    `  npx rtcap validate ${out}`,
    `  npx rtcap run ${out}`,
    '',
    'docs/YOUR-SERVER.md walks through each step.',
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function initCommand(y: Argv): Argv {
  return y.command(
    'init <url>',
    'write a starter profile for your own server (hosted Supabase, self-hosted Realtime, or a Phoenix app) and print its set-up',
    initOptions,
    initHandler,
  );
}
