// The apps/v1 object a fixture's WorkloadSpec stands for: a Deployment (whose ReplicaSet owns the
// pods), a StatefulSet or a DaemonSet, with a one-container pod template.
import type { WorkloadSpec } from './types.js';

export function workloadObject(spec: WorkloadSpec): object {
  const { namespace, name, labels } = spec;
  const template = {
    metadata: { labels: { ...labels } },
    spec: { containers: [{ name, image: `registry.sim.local/${name}:1.0.0` }] },
  };
  const base = { metadata: { name, namespace, labels: { ...labels } } };
  const selector = { matchLabels: { ...labels } };
  switch (spec.kind) {
    case 'StatefulSet':
      return {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        ...base,
        spec: {
          replicas: spec.replicas,
          serviceName: name,
          selector,
          template,
          podManagementPolicy: spec.podManagementPolicy ?? 'Parallel',
          updateStrategy: updateStrategy(spec, { partition: spec.partition ?? 0 }),
        },
      };
    case 'DaemonSet':
      return {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        ...base,
        spec: {
          selector,
          template,
          updateStrategy: updateStrategy(spec, {
            maxUnavailable: spec.maxUnavailable ?? 1,
            maxSurge: 0,
          }),
        },
      };
    default:
      return {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        ...base,
        spec: {
          replicas: spec.replicas,
          selector,
          template,
          strategy:
            spec.strategy === 'Recreate'
              ? { type: 'Recreate' }
              : {
                  type: 'RollingUpdate',
                  rollingUpdate: {
                    maxSurge: spec.maxSurge ?? '25%',
                    maxUnavailable: spec.maxUnavailable ?? '25%',
                  },
                },
        },
      };
  }
}

function updateStrategy(spec: WorkloadSpec, rollingUpdate: object): object {
  if (spec.strategy === 'OnDelete') return { type: 'OnDelete' };
  return { type: 'RollingUpdate', rollingUpdate };
}
