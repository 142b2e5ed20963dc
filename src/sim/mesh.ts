// A small Istio mesh in the middle of a root-certificate rotation: the Secret already holds the
// new root, the ConfigMaps catch up after a delay, and a directive describes the bounce order.
import { randomBytes } from 'node:crypto';
import type { DirectiveObject } from './objects.js';
import type { Simulator } from './types.js';

export interface DemoMeshOptions {
  /** Readiness delay of replacement pods; default 0. */
  readinessDelayMs?: number;
  /** When the istio-ca-root-cert ConfigMaps receive the new root; default 1000. */
  configMapSyncDelayMs?: number;
}

const ROOT_CERT_KEY = 'root-cert.pem';

/** A PEM-shaped certificate with random content (not a parsable certificate). */
function fakePem(): string {
  const body = randomBytes(576).toString('base64');
  const lines = body.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** Populates `sim` with the demo mesh and returns the `istio-system/mesh-certs` directive. */
export function demoMesh(sim: Simulator, opts: DemoMeshOptions = {}): DirectiveObject {
  demoMeshWorkloads(sim, opts);
  return sim.applyDirective(meshCertsDirective());
}

/** The demo mesh without its directive, for a demo that creates the directive through the API. */
export function demoMeshWorkloads(sim: Simulator, opts: DemoMeshOptions = {}): void {
  const readinessDelayMs = opts.readinessDelayMs ?? 0;
  const oldRoot = fakePem();
  const newRoot = fakePem();
  const workload = { kind: 'ReplicaSet', readinessDelayMs } as const;
  sim.addWorkload({
    ...workload,
    namespace: 'istio-system',
    name: 'istiod',
    labels: { app: 'istiod' },
    replicas: 1,
  });
  sim.addWorkload({
    ...workload,
    namespace: 'istio-system',
    name: 'istio-ingressgateway',
    labels: { app: 'istio-ingressgateway' },
    replicas: 2,
  });
  sim.addWorkload({
    ...workload,
    namespace: 'bookinfo',
    name: 'reviews',
    labels: { app: 'reviews' },
    replicas: 2,
  });
  sim.addWorkload({
    ...workload,
    kind: 'StatefulSet',
    namespace: 'bookinfo',
    name: 'ratings',
    labels: { app: 'ratings' },
    replicas: 2,
  });
  sim.putSecret('istio-system', 'cacerts', { [ROOT_CERT_KEY]: newRoot });
  for (const namespace of ['istio-system', 'bookinfo']) {
    sim.putConfigMap(namespace, 'istio-ca-root-cert', { [ROOT_CERT_KEY]: oldRoot });
  }
  sim.schedule(opts.configMapSyncDelayMs ?? 1000, () => {
    for (const namespace of ['istio-system', 'bookinfo']) {
      sim.putConfigMap(namespace, 'istio-ca-root-cert', { [ROOT_CERT_KEY]: newRoot });
    }
  });
}

/** The demo's `istio-system/mesh-certs` directive, as a manifest. */
export function meshCertsDirective(): object {
  return {
    apiVersion: 'internal.gloo.solo.io/v2',
    kind: 'PodBounceDirective',
    metadata: { name: 'mesh-certs', namespace: 'istio-system' },
    spec: {
      meshRef: { name: 'istiod-istio-system-cluster-1', namespace: 'gloo-mesh' },
      podsToBounce: [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 1 },
        { namespace: 'istio-system', labels: { app: 'istio-ingressgateway' }, waitForReplicas: 2 },
        {
          namespace: 'bookinfo',
          labels: { app: 'reviews' },
          rootCertSync: {
            secretRef: { name: 'cacerts', namespace: 'istio-system' },
            secretKey: ROOT_CERT_KEY,
            configMapRef: { name: 'istio-ca-root-cert', namespace: 'bookinfo' },
            configMapKey: ROOT_CERT_KEY,
          },
          waitForReplicas: 2,
        },
        { namespace: 'bookinfo', labels: { app: 'ratings' }, waitForReplicas: 2 },
      ],
    },
  };
}
