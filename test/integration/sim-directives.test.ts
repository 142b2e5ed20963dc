// PodBounceDirectives through CustomObjectsApi: generation, status subresource, concurrency,
// schema validation from the chart's CRD, and every patch flavour.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import {
  apiError,
  directiveBody,
  GROUP,
  PLURAL,
  startWithClients,
  VERSION,
} from './sim-clients.js';
import type { SimClients } from './sim-clients.js';

const NS = 'istio-system';
const ref = { group: GROUP, version: VERSION, namespace: NS, plural: PLURAL };
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const istiod = { namespace: NS, labels: { app: 'istiod' }, waitForReplicas: 1 };

describe('simulator: PodBounceDirectives', () => {
  let c: SimClients;
  beforeEach(async () => {
    c = await startWithClients();
  });
  afterEach(async () => {
    await c.sim.close();
  });

  it('bumps generation on spec changes only, and keeps status and spec writes apart', async () => {
    const created = await c.custom.createNamespacedCustomObject({
      ...ref,
      body: { ...directiveBody('mesh', [istiod]), status: { state: 'FINISHED' } },
    });
    expect(created.metadata).toMatchObject({
      name: 'mesh',
      namespace: NS,
      generation: 1,
      uid: expect.any(String),
    });
    expect(created.status).toBeUndefined();

    const respec = await c.custom.patchNamespacedCustomObject(
      {
        ...ref,
        name: 'mesh',
        body: { spec: { podsToBounce: [{ ...istiod, waitForReplicas: 2 }] } },
      },
      merge,
    );
    expect(respec.metadata.generation).toBe(2);
    expect(respec.spec.meshRef).toEqual({
      name: 'istiod-istio-system-cluster-1',
      namespace: 'gloo-mesh',
    });

    const status = { observedGeneration: 2, state: 'PENDING', error: '', podsBounced: [] };
    const withStatus = await c.custom.patchNamespacedCustomObjectStatus(
      {
        ...ref,
        name: 'mesh',
        body: {
          metadata: { resourceVersion: respec.metadata.resourceVersion },
          status,
          spec: { podsToBounce: [] },
        },
      },
      merge,
    );
    expect(withStatus.metadata.generation).toBe(2);
    expect(withStatus.status).toEqual(status);
    expect(withStatus.spec.podsToBounce).toHaveLength(1);
    expect(Number(withStatus.metadata.resourceVersion)).toBeGreaterThan(
      Number(respec.metadata.resourceVersion),
    );

    // A write to the main resource cannot change status.
    const relabel = await c.custom.patchNamespacedCustomObject(
      {
        ...ref,
        name: 'mesh',
        body: { metadata: { labels: { a: 'b' } }, status: { state: 'FAILED' } },
      },
      merge,
    );
    expect(relabel.status.state).toBe('PENDING');
    expect(relabel.metadata.generation).toBe(2);

    const stale = await apiError(
      c.custom.patchNamespacedCustomObjectStatus(
        {
          ...ref,
          name: 'mesh',
          body: {
            metadata: { resourceVersion: respec.metadata.resourceVersion },
            status: { state: 'FINISHED' },
          },
        },
        merge,
      ),
      409,
    );
    expect(stale.reason).toBe('Conflict');
    expect(stale.message).toContain('the object has been modified');
    expect(c.sim.getDirective(NS, 'mesh')?.status?.state).toBe('PENDING');
  });

  it('does not write when a patch changes nothing', async () => {
    const created = await c.custom.createNamespacedCustomObject({
      ...ref,
      body: directiveBody('mesh', [istiod]),
    });
    const same = await c.custom.patchNamespacedCustomObject(
      { ...ref, name: 'mesh', body: { spec: { podsToBounce: [istiod] } } },
      merge,
    );
    expect(same.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('rejects objects that break the CRD schema with 422 Invalid', async () => {
    const empty = await apiError(
      c.custom.createNamespacedCustomObject({ ...ref, body: directiveBody('empty', []) }),
      422,
    );
    expect(empty.reason).toBe('Invalid');
    expect(empty.message).toBe(
      'PodBounceDirective.internal.gloo.solo.io "empty" is invalid: spec.podsToBounce: Invalid value: 0: spec.podsToBounce in body should have at least 1 items',
    );
    expect(empty.details?.causes?.[0]).toMatchObject({
      field: 'spec.podsToBounce',
      reason: 'FieldValueInvalid',
    });

    const bad = await apiError(
      c.custom.createNamespacedCustomObject({
        ...ref,
        body: directiveBody('bad', [
          { namespace: 'Not_A_Label', labels: { app: 7 }, waitForReplicas: -1 },
        ]),
      }),
      422,
    );
    expect(bad.details?.causes?.map((x) => x.field).sort()).toEqual([
      'spec.podsToBounce[0].labels.app',
      'spec.podsToBounce[0].namespace',
      'spec.podsToBounce[0].waitForReplicas',
    ]);

    await c.custom.createNamespacedCustomObject({ ...ref, body: directiveBody('ok', [istiod]) });
    const badState = await apiError(
      c.custom.patchNamespacedCustomObjectStatus(
        { ...ref, name: 'ok', body: { status: { state: 'DONE' } } },
        merge,
      ),
      422,
    );
    expect(badState.message).toContain(
      'status.state: Unsupported value: "DONE": supported values: "PENDING", "BOUNCING_PODS", "FAILED", "FINISHED"',
    );
    const noSpec = await apiError(
      c.custom.createNamespacedCustomObject({
        ...ref,
        body: { ...directiveBody('x', []), spec: undefined },
      }),
      422,
    );
    expect(noSpec.message).toContain('spec: Required value');
  });

  it('prunes fields the schema does not declare', async () => {
    const created = await c.custom.createNamespacedCustomObject({
      ...ref,
      body: { ...directiveBody('mesh', [{ ...istiod, surprise: true }]), extra: 1 },
    });
    expect(created.extra).toBeUndefined();
    expect(created.spec.podsToBounce[0]).toEqual(istiod);
  });

  it('creates with server-side apply and removes fields the manager stops applying', async () => {
    const body = directiveBody('applied', [{ ...istiod, rootCertSync: undefined }]);
    const created = await c.custom.patchNamespacedCustomObject(
      { ...ref, name: 'applied', body, fieldManager: 'pod-bouncer', force: true },
      apply,
    );
    expect(created.metadata.generation).toBe(1);
    expect(c.sim.getDirective(NS, 'applied')?.spec.meshRef).toBeDefined();

    const withoutMesh = { ...body, spec: { podsToBounce: body.spec.podsToBounce } };
    const updated = await c.custom.patchNamespacedCustomObject(
      { ...ref, name: 'applied', body: withoutMesh, fieldManager: 'pod-bouncer', force: true },
      apply,
    );
    expect(updated.spec.meshRef).toBeUndefined();
    expect(updated.metadata.generation).toBe(2);
    expect(updated.metadata.uid).toBe(created.metadata.uid);

    const unmanaged = await apiError(
      c.custom.patchNamespacedCustomObject({ ...ref, name: 'applied', body }, apply),
      422,
    );
    expect(unmanaged.message).toContain('fieldManager');
  });

  it('supports JSON patch, including test operations', async () => {
    await c.custom.createNamespacedCustomObject({ ...ref, body: directiveBody('mesh', [istiod]) });
    const patched = await c.custom.patchNamespacedCustomObject({
      ...ref,
      name: 'mesh',
      body: [
        { op: 'add', path: '/spec/podsToBounce/-', value: { namespace: 'bookinfo', labels: {} } },
        { op: 'replace', path: '/spec/podsToBounce/0/waitForReplicas', value: 3 },
        { op: 'remove', path: '/spec/meshRef' },
      ],
    });
    expect(patched.spec).toEqual({
      podsToBounce: [
        { ...istiod, waitForReplicas: 3 },
        { namespace: 'bookinfo', labels: {} },
      ],
    });
    expect(patched.metadata.generation).toBe(2);
    await apiError(
      c.custom.patchNamespacedCustomObject({
        ...ref,
        name: 'mesh',
        body: [{ op: 'test', path: '/metadata/resourceVersion', value: '1' }],
      }),
      422,
    );
  });

  it('guards PUT with resourceVersion, answers AlreadyExists and NotFound, and deletes', async () => {
    const created = await c.custom.createNamespacedCustomObject({
      ...ref,
      body: directiveBody('mesh', [istiod]),
    });
    const exists = await apiError(
      c.custom.createNamespacedCustomObject({ ...ref, body: directiveBody('mesh', [istiod]) }),
      409,
    );
    expect(exists.reason).toBe('AlreadyExists');

    const replaced = await c.custom.replaceNamespacedCustomObject({
      ...ref,
      name: 'mesh',
      body: { ...created, spec: { podsToBounce: [{ ...istiod, waitForReplicas: 0 }] } },
    });
    expect(replaced.metadata.generation).toBe(2);
    await apiError(
      c.custom.replaceNamespacedCustomObject({ ...ref, name: 'mesh', body: created }),
      409,
    );
    const noVersion = { ...replaced.metadata, resourceVersion: undefined };
    await apiError(
      c.custom.replaceNamespacedCustomObject({
        ...ref,
        name: 'mesh',
        body: { ...replaced, metadata: noVersion },
      }),
      422,
    );

    const listed = (await c.custom.listNamespacedCustomObject(ref)) as {
      items: Array<{ metadata: { name: string } }>;
    };
    expect(listed.items.map((d) => d.metadata.name)).toEqual(['mesh']);
    await c.custom.deleteNamespacedCustomObject({ ...ref, name: 'mesh' });
    const missing = await apiError(
      c.custom.getNamespacedCustomObject({ ...ref, name: 'mesh' }),
      404,
    );
    expect(missing.message).toBe('podbouncedirectives.internal.gloo.solo.io "mesh" not found');
  });

  it('applies directives programmatically with the same generation rules', () => {
    const first = c.sim.applyDirective(directiveBody('mesh', [istiod]));
    expect(first.metadata.generation).toBe(1);
    expect(
      c.sim.applyDirective({
        ...directiveBody('mesh', [istiod]),
        metadata: { name: 'mesh', namespace: NS, labels: { x: 'y' } },
      }).metadata.generation,
    ).toBe(1);
    expect(
      c.sim.applyDirective(directiveBody('mesh', [{ ...istiod, waitForReplicas: 5 }])).metadata
        .generation,
    ).toBe(2);
    expect(() => c.sim.applyDirective(directiveBody('broken', []))).toThrow(/at least 1 items/);
    c.sim.deleteDirective(NS, 'mesh');
    expect(c.sim.getDirective(NS, 'mesh')).toBeUndefined();
  });
});
