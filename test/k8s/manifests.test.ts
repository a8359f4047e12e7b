import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { k8sManifests, manifestsYaml } from '../../src/k8s/manifests.js';
import { splitSecrets } from '../../src/k8s/secrets.js';

const opts = {
  name: 'rtcap-p',
  profileYaml: 'name: p\nscenario: broadcast-public\n',
  agents: 3,
  image: 'rtcap:dev',
  url: 'ws://rt:4000/socket/websocket',
  startAt: '2026-11-30T20:00:00.000Z',
  cpu: '2',
  memory: '2Gi',
  storage: '1Gi',
};

describe('rtcap k8s manifests', () => {
  it('pass the Kubernetes schema validation, read back from the YAML printed', () => {
    const docs = parseAllDocuments(manifestsYaml(k8sManifests(opts))).map(
      (d) => d.toJSON() as { kind: string },
    );
    expect(docs.map((d) => d.kind)).toEqual(['ConfigMap', 'PersistentVolumeClaim', 'Job', 'Job']);
    const models = docs.map((d) =>
      d.kind === 'ConfigMap'
        ? new ConfigMap(d as never)
        : d.kind === 'Job'
          ? new Job(d as never)
          : new PersistentVolumeClaim(d as never),
    );
    for (const m of models) expect(() => m.validate()).not.toThrow();
    const seg = models[2] as Job;
    expect(seg.spec?.completionMode).toBe('Indexed');
    expect(seg.spec?.completions).toBe(3);
    const c = seg.spec!.template.spec!.containers[0];
    expect(c.args).toEqual(
      expect.arrayContaining([
        '--segment',
        '$(JOB_COMPLETION_INDEX)/3',
        '--start-at',
        opts.startAt,
        '--url',
        opts.url,
      ]),
    );
    expect(c.resources?.requests).toEqual({ cpu: '2', memory: '2Gi' });
    expect(
      seg.spec!.template.spec!.affinity?.podAntiAffinity
        ?.requiredDuringSchedulingIgnoredDuringExecution?.[0].topologyKey,
    ).toBe('kubernetes.io/hostname');
    expect((models[0] as ConfigMap).data?.['profile.yaml']).toBe(opts.profileYaml);
  });

  it('a schema violation is caught', () => {
    const bad = new Job({
      metadata: { name: 'x' },
      spec: {
        completionMode: 'Indexed',
        completions: 'three' as never,
        template: { spec: { containers: [] } },
      },
    });
    expect(() => bad.validate()).toThrow();
  });

  it('a profile with a token yields a Secret read by secretKeyRef, and a ConfigMap and args without the literal', () => {
    const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
    const split = splitSecrets(
      `name: p\nscenario: broadcast-public\ntarget: { auth: { apikey: ${TOKEN} } }\n`,
      `wss://rt.example/socket/websocket?apikey=${TOKEN}`,
    );
    const text = manifestsYaml(
      k8sManifests({
        ...opts,
        profileYaml: split.profileYaml,
        url: split.url,
        secrets: split.secrets,
      }),
    );
    const docs = parseAllDocuments(text).map((d) => d.toJSON() as { kind: string });
    expect(docs.map((d) => d.kind)).toEqual([
      'ConfigMap',
      'Secret',
      'PersistentVolumeClaim',
      'Job',
      'Job',
    ]);
    const secret = new Secret(docs[1] as never);
    expect(() => secret.validate()).not.toThrow();
    expect(
      Object.values(secret.data ?? {}).map((v) => Buffer.from(v, 'base64').toString()),
    ).toEqual(expect.arrayContaining([TOKEN, `wss://rt.example/socket/websocket?apikey=${TOKEN}`]));
    // The literal is only in the Secret.
    const others = docs.filter((d) => d.kind !== 'Secret').map((d) => JSON.stringify(d));
    for (const o of others) expect(o).not.toContain(TOKEN);
    const seg = new Job(docs[3] as never);
    expect(() => seg.validate()).not.toThrow();
    const c = seg.spec!.template.spec!.containers[0];
    expect(c.args).toEqual(expect.arrayContaining(['--url', '$(RTCAP_URL)']));
    expect(c.env?.map((e) => e.valueFrom?.secretKeyRef?.name)).toEqual(
      Object.keys(split.secrets).map(() => 'rtcap-p-secrets'),
    );
    expect(c.env?.map((e) => e.name).sort()).toEqual(Object.keys(split.secrets).sort());
    expect(new ConfigMap(docs[0] as never).data?.['profile.yaml']).toContain('${RTCAP_SECRET_0}');
  });
});
