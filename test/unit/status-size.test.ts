import { describe, expect, it } from 'vitest';
import type { Directive } from '../../src/directive/types.js';
import { PermanentError } from '../../src/errors.js';
import {
  OBJECT_SIZE_LIMIT,
  assertStatusFits,
  sizeWithPods,
} from '../../src/workflow/status-size.js';

/** A Gloo-shaped directive: one selector per workload, each namespace and app named. */
function meshDirective(selectors: number): Directive {
  return {
    apiVersion: 'internal.gloo.solo.io/v2',
    kind: 'PodBounceDirective',
    metadata: {
      namespace: 'gloo-mesh',
      name: 'mesh-certs',
      uid: '4f1c2d7e-9b3a-4c6e-8f0d-2a5b7c9e1f34',
      generation: 1,
      resourceVersion: '123456',
    },
    spec: {
      podsToBounce: Array.from({ length: selectors }, (_, i) => ({
        namespace: `workloads-${i % 200}`,
        labels: { app: `workload-${i}`, 'istio.io/rev': 'default' },
        waitForReplicas: 0,
        rootCertSync: {
          secretRef: { name: 'cacerts', namespace: 'istio-system' },
          secretKey: 'root-cert.pem',
          configMapRef: { name: 'istio-ca-root-cert', namespace: `workloads-${i % 200}` },
          configMapKey: 'root-cert.pem',
        },
      })),
    },
  };
}

/** Pod names as a ReplicaSet makes them: the workload, a pod-template hash, a suffix. */
const podNames = (i: number, count: number): string[] =>
  Array.from({ length: count }, (_, p) => `workload-${i}-7d4b9c5f8-${String(p).padStart(5, 'x')}`);

describe('the status fits the API server', () => {
  it('1000 selectors of 20 pods each fit, with room to spare', () => {
    const directive = meshDirective(1000);
    directive.status = {
      podsBounced: Array.from({ length: 999 }, (_, i) => ({ bouncedPods: podNames(i, 20) })),
    };
    const size = sizeWithPods(directive, 999, podNames(999, 20));
    console.log(JSON.stringify({ statusBytes1000x20: size, limit: OBJECT_SIZE_LIMIT }));
    expect(size).toBeLessThan(OBJECT_SIZE_LIMIT);
    expect(() => assertStatusFits(directive, 999, podNames(999, 20))).not.toThrow();
  });

  it('a selector whose pod names would overflow it fails, naming the size and the limit', () => {
    const directive = meshDirective(1000);
    directive.status = {
      podsBounced: Array.from({ length: 999 }, (_, i) => ({ bouncedPods: podNames(i, 40) })),
    };
    expect(() => assertStatusFits(directive, 999, podNames(999, 40))).toThrow(PermanentError);
    expect(() => assertStatusFits(directive, 999, podNames(999, 40))).toThrow(
      /would make the directive \d+ bytes, over the API server's object limit of 1572864 bytes/,
    );
  });
});
