/**
 * `rtcap k8s PROFILE --agents N --image IMAGE`: Kubernetes manifests for a run split into N
 * segments (k8s/manifests). The profile is validated as `rtcap run` loads it (its `${VARS}` may
 * be set only where the manifests are applied), and refused without a shared target.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ArgumentsCamelCase, Argv } from 'yargs';
import { k8sManifests, kubectlCommands, manifestsYaml } from '../k8s/manifests.js';
import { SecretPlacementError, splitSecrets, type SplitSecrets } from '../k8s/secrets.js';
import { isLoopbackHost } from '../client/url.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, checkedPositional, file, int, matching, outFile, wsUrl } from './flags.js';
import { loadProfileOrExit, refuseUnsharedTarget } from './shared.js';

/** A Kubernetes resource quantity: 2, 500m, 2Gi, 1.5G. */
const quantity = matching(
  /^\d+(\.\d+)?(m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?$/,
  'a Kubernetes quantity (e.g. 2, 500m, 2Gi)',
);

/** The flags of `rtcap k8s`: the profile, the segments, the image and the pods' resources. */
function k8sOptions(c: Argv) {
  return c
    .positional(
      'profile',
      checkedPositional('profile', file, { demandOption: true, describe: 'profile YAML file' }),
    )
    .option(
      'agents',
      checked('agents', int(1, 1000), {
        demandOption: true,
        describe: 'segments: generator pods, one per node',
      }),
    )
    .option(
      'image',
      checked(
        'image',
        matching(/^[^\s]+$/, 'a container image reference (e.g. ghcr.io/me/rtcap:1)'),
        {
          demandOption: true,
          describe: 'container image with rtcap (see Dockerfile)',
        },
      ),
    )
    .option(
      'url',
      checked('url', wsUrl, {
        describe:
          "WebSocket URL of the target (or the profile's target.url): one server every pod loads",
      }),
    )
    .option(
      'start-in',
      checked('start-in', int(0, 86_400), {
        default: '120',
        describe:
          'seconds from now to the shared --start-at (time for every pod to be scheduled and started)',
      }),
    )
    .option(
      'cpu',
      checked('cpu', quantity, { default: '2', describe: 'CPU request per generator pod' }),
    )
    .option(
      'memory',
      checked('memory', quantity, {
        default: '2Gi',
        describe: 'memory request per generator pod',
      }),
    )
    .option(
      'storage',
      checked('storage', quantity, {
        default: '1Gi',
        describe: 'results volume size (ReadWriteMany)',
      }),
    )
    .option(
      'out',
      checked('out', outFile, { describe: 'write the manifests here instead of stdout' }),
    );
}

type K8sArgs = ArgumentsCamelCase<ReturnType<typeof k8sOptions> extends Argv<infer T> ? T : never>;

/** The objects' name: `rtcap-` and the profile file's name, as Kubernetes allows, ≤ 40 chars. */
function manifestName(profilePath: string): string {
  return `rtcap-${basename(profilePath, '.yaml')
    .replace(/[^a-z0-9-]/gi, '-')
    .toLowerCase()}`
    .slice(0, 40)
    .replace(/-+$/, '');
}

/** The warning for `${VARS}` the profile names that are not set where rtcap k8s runs. */
function missingEnvWarning(missing: string[]): string {
  const it = missing.length === 1 ? 'it' : 'them';
  return `warning: the profile refers to ${missing.map((n) => '${' + n + '}').join(', ')}, not set here: the generator pods will not have ${it} (set ${it} before rtcap k8s to put ${it} in the Secret)\n`;
}

/** Writes the manifests (stdout or --out); stderr says when the segments start and what next. */
function writeManifests(args: K8sArgs, name: string, startAt: string, split: SplitSecrets) {
  const objects = k8sManifests({
    name,
    profileYaml: split.profileYaml,
    secrets: split.secrets,
    agents: args.agents,
    image: args.image,
    url: split.url,
    startAt,
    cpu: args.cpu,
    memory: args.memory,
    storage: args.storage,
  });
  const text = manifestsYaml(objects);
  if (split.missingEnv.length) process.stderr.write(missingEnvWarning(split.missingEnv));
  if (args.out) writeFileSync(args.out, text);
  else process.stdout.write(text);
  // Only a file written here is named; manifests on stdout are applied from a pipe.
  const apply =
    args.out ?? '-   # the manifests printed above, piped: rtcap k8s … | kubectl apply -f -';
  process.stderr.write(
    `segments start at ${startAt}; then:\n${kubectlCommands(name, apply)
      .map((l) => '  ' + l)
      .join('\n')}\n`,
  );
}

/**
 * A loopback target is this machine's, which no pod reaches (a pod's 127.0.0.1 is its own): true
 * (exit 2, one line) when the URL is one.
 */
function refuseLoopback(url: string | undefined): boolean {
  if (url === undefined || !isLoopbackHost(url)) return false;
  process.stderr.write(
    `rtcap k8s: ${new URL(url).host} is a loopback address: no pod can reach this machine's 127.0.0.1 (a pod's loopback is its own); give the target's address as the cluster reaches it\n`,
  );
  process.exitCode = EXIT.usage;
  return true;
}

async function k8sHandler(args: K8sArgs): Promise<void> {
  const loaded = await loadProfileOrExit(args.profile, [], { allowUnsetEnv: true });
  if (!loaded || !refuseUnsharedTarget(loaded, args.url, 'rtcap k8s')) return;
  if (refuseLoopback(args.url ?? loaded.profile.target.url)) return;
  const name = manifestName(args.profile);
  const startAt = new Date(Date.now() + args['start-in'] * 1000).toISOString();
  // Secrets (profile or --url) go into a Secret, never into the ConfigMap or the args.
  let split: SplitSecrets;
  try {
    split = splitSecrets(readFileSync(args.profile, 'utf8'), args.url, process.env);
  } catch (e) {
    if (!(e instanceof SecretPlacementError)) throw e;
    process.stderr.write(`rtcap k8s: ${e.message}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  writeManifests(args, name, startAt, split);
}

export function k8sCommand(y: Argv): Argv {
  return y.command(
    'k8s <profile>',
    'print Kubernetes manifests that run a profile as N segments (Indexed Job) and merge them',
    k8sOptions,
    k8sHandler,
  );
}
