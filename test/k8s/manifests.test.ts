import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { k8sManifests, manifestsYaml } from '../../src/k8s/manifests.js';

const opts = { name: 'rtcap-p', profileYaml: 'name: p\nscenario: broadcast-public\n', agents: 3, image: 'rtcap:dev', url: 'ws://rt:4000/socket/websocket', startAt: '2026-11-30T20:00:00.000Z', cpu: '2', memory: '2Gi', storage: '1Gi' };

describe('rtcap k8s manifests', () => {
  it('pass the Kubernetes schema validation, read back from the YAML printed', () => {
    const docs = parseAllDocuments(manifestsYaml(k8sManifests(opts))).map((d) => d.toJSON() as { kind: string });
    expect(docs.map((d) => d.kind)).toEqual(['ConfigMap', 'PersistentVolumeClaim', 'Job', 'Job']);
    const models = docs.map((d) => (d.kind === 'ConfigMap' ? new ConfigMap(d as never) : d.kind === 'Job' ? new Job(d as never) : new PersistentVolumeClaim(d as never)));
    for (const m of models) expect(() => m.validate()).not.toThrow();
    const seg = models[2] as Job;
    expect(seg.spec?.completionMode).toBe('Indexed');
    expect(seg.spec?.completions).toBe(3);
    const c = seg.spec!.template.spec!.containers[0];
    expect(c.args).toEqual(expect.arrayContaining(['--segment', '$(JOB_COMPLETION_INDEX)/3', '--start-at', opts.startAt, '--url', opts.url]));
    expect(c.resources?.requests).toEqual({ cpu: '2', memory: '2Gi' });
    expect(seg.spec!.template.spec!.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0].topologyKey).toBe('kubernetes.io/hostname');
    expect((models[0] as ConfigMap).data?.['profile.yaml']).toBe(opts.profileYaml);
  });

  it('a schema violation is caught', () => {
    const bad = new Job({ metadata: { name: 'x' }, spec: { completionMode: 'Indexed', completions: 'three' as never, template: { spec: { containers: [] } } } });
    expect(() => bad.validate()).toThrow();
  });
});
