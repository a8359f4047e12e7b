/**
 * `rtcap k8s`: the manifests that run one profile as N segments on Kubernetes, built with the
 * typed models of kubernetes-models (each object validated against the API schema): a
 * ConfigMap with the profile, a shared results volume (ReadWriteMany PVC), an Indexed Job
 * whose completion index is the segment (JOB_COMPLETION_INDEX → --segment), one pod per node
 * (required anti-affinity), resource requests, and a merge Job that waits for every shard.
 * Secrets (./secrets.ts) go into a Secret read by secretKeyRef, never into the ConfigMap or args.
 */
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Job } from 'kubernetes-models/batch/v1/Job';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { stringify } from 'yaml';

export interface K8sOptions {
  name: string;
  /** The profile YAML, its secrets replaced by env references (./secrets.ts splitSecrets). */
  profileYaml: string;
  /**
   * Env var name → secret value (./secrets.ts): a Secret the generator pods read by secretKeyRef.
   */
  secrets?: Record<string, string>;
  agents: number;
  image: string;
  url?: string;
  /** ISO 8601; every segment's --start-at. */
  startAt: string;
  cpu: string;
  memory: string;
  storage: string;
}

const RESULTS = '/results';
/**
 * The image runs as its `node` user (uid and gid 1000, see the Dockerfile); fsGroup makes the
 * results volume writable to it, since a fresh volume is owned by root.
 */
const POD_SECURITY = { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 };
const PROFILE_DIR = '/profile';

/** Labels, volumes and mounts every object and pod of one run shares. */
interface Common {
  labels: Record<string, string>;
  volumes: IVolume[];
  mounts: IVolumeMount[];
}

export function k8sManifests(
  o: K8sOptions,
): Array<ConfigMap | Secret | PersistentVolumeClaim | Job> {
  const labels = { app: 'rtcap', 'rtcap/run': o.name };
  const c: Common = {
    labels,
    volumes: [
      { name: 'profile', configMap: { name: `${o.name}-profile` } },
      { name: 'results', persistentVolumeClaim: { claimName: `${o.name}-results` } },
    ],
    mounts: [
      { name: 'profile', mountPath: PROFILE_DIR, readOnly: true },
      { name: 'results', mountPath: RESULTS },
    ],
  };
  const objects = [
    new ConfigMap({
      metadata: { name: `${o.name}-profile`, labels },
      data: { 'profile.yaml': o.profileYaml },
    }),
    ...secretOf(o, labels),
    new PersistentVolumeClaim({
      metadata: { name: `${o.name}-results`, labels },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: o.storage } } },
    }),
    segmentsJob(o, c),
    mergeJob(o, c),
  ];
  for (const x of objects) x.validate();
  return objects;
}

/**
 * The Secret with the profile's secrets, none when it has none. base64 `data`, not stringData:
 * the printed manifests show no secret in clear (and rtcap's redaction of its own output cannot
 * mangle one).
 */
function secretOf(o: K8sOptions, labels: Record<string, string>): Secret[] {
  if (!Object.keys(o.secrets ?? {}).length) return [];
  return [
    new Secret({
      metadata: { name: `${o.name}-secrets`, labels },
      type: 'Opaque',
      data: Object.fromEntries(
        Object.entries(o.secrets!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
    }),
  ];
}

/** `rtcap run --segment i/N --start-at` of one pod of the segments Job. */
function segmentArgs(o: K8sOptions): string[] {
  return [
    'run',
    `${PROFILE_DIR}/profile.yaml`,
    '--segment',
    '$(JOB_COMPLETION_INDEX)/' + o.agents,
    '--start-at',
    o.startAt,
    '--out',
    `${RESULTS}/segment-$(JOB_COMPLETION_INDEX)`,
    '--force',
    '--no-progress',
    ...(o.url ? ['--url', o.url] : []),
  ];
}

/** The Indexed Job of the segments: one pod a segment, one segment a node, secrets as env. */
function segmentsJob(o: K8sOptions, c: Common): Job {
  const env = Object.keys(o.secrets ?? {}).map((key) => ({
    name: key,
    valueFrom: { secretKeyRef: { name: `${o.name}-secrets`, key } },
  }));
  return new Job({
    metadata: { name: `${o.name}-segments`, labels: c.labels },
    spec: {
      completionMode: 'Indexed',
      completions: o.agents,
      parallelism: o.agents,
      backoffLimit: 0,
      template: {
        metadata: { labels: { ...c.labels, 'rtcap/role': 'segment' } },
        spec: {
          restartPolicy: 'Never',
          securityContext: POD_SECURITY,
          // One generator per node: two segments on one node would share its CPU and ports.
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                {
                  labelSelector: {
                    matchLabels: { 'rtcap/run': o.name, 'rtcap/role': 'segment' },
                  },
                  topologyKey: 'kubernetes.io/hostname',
                },
              ],
            },
          },
          containers: [
            {
              name: 'rtcap',
              image: o.image,
              args: segmentArgs(o),
              ...(env.length ? { env } : {}),
              resources: { requests: { cpu: o.cpu, memory: o.memory } },
              volumeMounts: c.mounts,
            },
          ],
          volumes: c.volumes,
        },
      },
    },
  });
}

/** The merge Job: waits (bounded: 24 h) until every segment's shard is there, then merges. */
function mergeJob(o: K8sOptions, c: Common): Job {
  return new Job({
    metadata: { name: `${o.name}-merge`, labels: c.labels },
    spec: {
      backoffLimit: 2,
      template: {
        metadata: { labels: { ...c.labels, 'rtcap/role': 'merge' } },
        spec: {
          restartPolicy: 'Never',
          securityContext: POD_SECURITY,
          containers: [
            {
              name: 'merge',
              image: o.image,
              command: ['sh', '-c'],
              args: [
                `for i in $(seq 17280); do [ "$(ls ${RESULTS}/segment-*/shard.json 2>/dev/null | wc -l)" -ge ${o.agents} ] && exec rtcap merge ${RESULTS} --out ${RESULTS}/merged --force; sleep 5; done; echo 'rtcap merge: shards missing after 24 h' >&2; exit 1`,
              ],
              resources: { requests: { cpu: '100m', memory: '256Mi' } },
              volumeMounts: c.mounts,
            },
          ],
          volumes: c.volumes,
        },
      },
    },
  });
}

export function manifestsYaml(objects: ReadonlyArray<{ toJSON(): unknown }>): string {
  return objects.map((x) => stringify(x.toJSON())).join('---\n');
}

export function kubectlCommands(name: string, file: string): string[] {
  return [
    `kubectl apply -f ${file}`,
    `kubectl wait --for=condition=complete job/${name}-merge --timeout=24h`,
    // A finished pod cannot be copied from: the merged run is on the results volume, read it from
    // any pod that mounts ${name}-results.
    `kubectl logs job/${name}-merge   # the merged summary; result.json, report.html in /results/merged on the ${name}-results volume`,
  ];
}
