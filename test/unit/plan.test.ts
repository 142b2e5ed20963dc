// The one plan of a selector's bounce (src/workflow/modes/index.ts), run by the worker and shown by the
// dry run: rollout owners resolved once per controller, grouped by owner, the rest evicted.
import { describe, expect, it } from 'vitest';
import type { PodSelector } from '../../src/directive/types.js';
import type { RolloutOwner } from '../../src/kube/owners.js';
import type { ChosenPod } from '../../src/queue/selector-job.js';
import { planBounce } from '../../src/workflow/modes/index.js';
import { batchNames, resolvePodOwners, type OwnerLookup } from '../../src/workflow/plan.js';

const DEFAULTS = { bounceMode: 'evict', defaultMaxUnavailable: { percent: 25 } } as const;

const pod = (name: string, kind?: string, owner?: string): ChosenPod =>
  kind === undefined
    ? { name, uid: `uid-${name}` }
    : { name, uid: `uid-${name}`, owner: { kind, name: owner! } };

const CHOSEN = [
  pod('web-old-1', 'ReplicaSet', 'web-old'),
  pod('db-0', 'StatefulSet', 'db'),
  pod('web-new-1', 'ReplicaSet', 'web-new'),
  pod('cache-1', 'ReplicaSet', 'cache'),
  pod('migrate-1', 'Job', 'migrate'),
  pod('web-old-2', 'ReplicaSet', 'web-old'),
  pod('db-1', 'StatefulSet', 'db'),
  pod('bare'),
];

/** ReplicaSets web-old and web-new belong to Deployment web; cache to no one. */
function lookup(calls: string[]): OwnerLookup {
  return async (_namespace, controller) => {
    calls.push(`${controller.kind}/${controller.name}`);
    if (controller.kind === 'StatefulSet') return { kind: 'StatefulSet', name: controller.name };
    if (controller.kind !== 'ReplicaSet' || controller.name === 'cache') return undefined;
    return { kind: 'Deployment', name: 'web' } satisfies RolloutOwner;
  };
}

describe('planBounce', () => {
  it('resolves each controller once; a Deployment is one owner whatever its ReplicaSets', async () => {
    const calls: string[] = [];
    const owners = await resolvePodOwners(lookup(calls), 'ns', CHOSEN);
    expect(calls).toEqual([
      'ReplicaSet/web-old',
      'StatefulSet/db',
      'ReplicaSet/web-new',
      'ReplicaSet/cache',
      'Job/migrate',
    ]);
    expect(owners).toEqual({
      'uid-web-old-1': 'Deployment/web',
      'uid-db-0': 'StatefulSet/db',
      'uid-web-new-1': 'Deployment/web',
      'uid-cache-1': null,
      'uid-migrate-1': null,
      'uid-web-old-2': 'Deployment/web',
      'uid-db-1': 'StatefulSet/db',
      'uid-bare': null,
    });
  });

  it('restarts owners in a stable order and evicts the pods without one', async () => {
    const owners = await resolvePodOwners(lookup([]), 'ns', CHOSEN);
    const selector: PodSelector = {
      namespace: 'ns',
      labels: {},
      waitForReplicas: 0,
      bounceMode: 'rollout',
    };
    const plan = planBounce(DEFAULTS, { ...selector, maxUnavailable: 1 }, CHOSEN, owners);
    expect(plan.owners.map((owner) => owner.key)).toEqual(['Deployment/web', 'StatefulSet/db']);
    expect(plan.batches.map((batch) => batch.map((p) => p.name))).toEqual([
      ['cache-1'],
      ['migrate-1'],
      ['bare'],
    ]);
    // The dry run's view: owners first (a StatefulSet's pods as its rollout takes them), then the rest.
    expect(batchNames(plan)).toEqual([
      ['web-old-1', 'web-new-1', 'web-old-2'],
      ['db-1', 'db-0'],
      ['cache-1'],
      ['migrate-1'],
      ['bare'],
    ]);
    const wide = planBounce(DEFAULTS, { ...selector, maxUnavailable: 2 }, CHOSEN, owners);
    expect(batchNames(wide)).toEqual([
      ['web-old-1', 'web-new-1', 'web-old-2', 'db-1', 'db-0'],
      ['cache-1', 'migrate-1'],
      ['bare'],
    ]);
  });

  it('bounces every chosen pod one by one in the other modes', () => {
    const selector = { namespace: 'ns', labels: {}, waitForReplicas: 0 };
    const plan = planBounce(DEFAULTS, selector, CHOSEN);
    expect(plan).toMatchObject({ bounceMode: 'evict', maxUnavailable: 2, owners: [] });
    expect(plan.batches.flat()).toHaveLength(CHOSEN.length);
  });
});
