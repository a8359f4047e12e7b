/**
 * `rtcap init URL [--kind supabase|realtime|phoenix] [--private] [--topic T] [--host H]
 * [--out FILE]`: writes a starter profile for the user's own server and prints the set-up that
 * server needs (keys to export, SQL for private channels, quotas that would read as
 * rejections). The profile comes from profile/starter (pure); this file only parses flags and
 * writes.
 */
import { existsSync, writeFileSync } from 'node:fs';
import type { ArgumentsCamelCase, Argv } from 'yargs';
import { probeForStarter, isLocalServer } from '../init/probe-starter.js';
import { notReplaceable } from '../init/replace-profile.js';
import {
  buildStarter,
  COMMAND_PREFIX,
  REALTIME_DEV_HOST,
  STARTER_KINDS,
  StarterError,
  type Starter,
  type StarterRequest,
} from '../profile/starter.js';
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
    .option('host', {
      type: 'string',
      describe: `realtime: the Host header naming the tenant, probed and written as target.host (default ${REALTIME_DEV_HOST}; e.g. realtime-private.localhost)`,
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
      describe: 'overwrite --out if it is an rtcap profile (any other file is refused)',
    })
    .option('probe', {
      type: 'boolean',
      default: true,
      describe:
        'ask the server first which wire encoding carries a broadcast there (with --private: on the private path; a Phoenix app: to another member), a few seconds; --no-probe writes without asking',
    });
}

type InitArgs = ArgumentsCamelCase<
  ReturnType<typeof initOptions> extends Argv<infer T> ? T : never
>;

async function initHandler(args: InitArgs): Promise<void> {
  const out = args.out;
  const req: StarterRequest = {
    url: args.url,
    kind: args.kind,
    private: args.private,
    topic: args.topic,
    host: args.host,
  };
  let starter;
  try {
    // The URL and the choices first: a URL that cannot be a server is the answer, not the file.
    starter = buildStarter(req);
  } catch (e) {
    if (!(e instanceof StarterError)) throw e;
    process.stderr.write(`rtcap init: ${e.message}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  if (existsSync(out)) {
    const why = args.force ? notReplaceable(out) : 'exists';
    if (why) {
      process.stderr.write(`rtcap init: ${out} ${why}; ${overwriteHint(args.force)}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
  }
  // A server on this machine is sampled from the process on its port: no metrics token asked.
  req.local = isLocalServer(starter.url);
  starter = buildStarter(req);
  let probeLine = 'not probed (--no-probe): wrote vsn 2.0.0';
  if (args.probe) {
    const probe = await probeForStarter(starter, req, process.env);
    if (probe.probed && !probe.ok) {
      process.stderr.write(
        `rtcap init: ${probe.line}; nothing written (--no-probe writes the profile without asking the server)\n`,
      );
      process.exitCode = EXIT.aborted;
      return;
    }
    probeLine = probe.line;
    if (probe.probed && probe.ok) {
      starter = buildStarter({
        ...req,
        encoding: probe.encoding,
        probed: probe.line,
        devSecret: probe.devSecret,
        receiveEvent: probe.receiveEvent,
      });
    }
  }
  writeFileSync(out, starter.yaml);
  process.stdout.write(`${setupText(out, starter, probeLine)}\n`);
}

/** What to do about an --out that is there: --force replaces only an earlier profile. */
function overwriteHint(force: boolean): string {
  return force
    ? '--force replaces only an rtcap profile; choose another --out'
    : 'choose another --out or add --force to overwrite it';
}

/** What init prints: the probe's line, the file, the set-up in order, then the commands to run. */
function setupText(out: string, starter: Starter, probeLine: string): string {
  const lines = [
    probeLine,
    `wrote ${out}: a ${starter.kind} profile for ${starter.url}`,
    '',
    'Before the first run:',
  ];
  starter.setup.forEach((s, i) => lines.push(`${i + 1}. ${s.replace(/\n/g, '\n   ')}`));
  lines.push(
    '',
    'Then:',
    `  ${COMMAND_PREFIX}npx rtcap validate ${out}`,
    `  ${COMMAND_PREFIX}npx rtcap run ${out}`,
    '',
    'docs/YOUR-SERVER.md walks through each step.',
  );
  return lines.join('\n');
}

export function initCommand(y: Argv): Argv {
  return y.command(
    'init <url>',
    'write a starter profile for your own server (hosted Supabase, self-hosted Realtime, or a Phoenix app) and print its set-up',
    initOptions,
    initHandler,
  );
}
