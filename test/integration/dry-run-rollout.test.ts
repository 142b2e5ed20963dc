// DESIGN §2 (dry runs) and §4 step 3 (bounceMode rollout): the plan a dry run shows is the one the
// worker then carries out. A Deployment in mid-rollout (two ReplicaSets) is one owner, restarted
// once; pods of a ReplicaSet that no Deployment owns, or of a Job, have no owner that
// `kubectl rollout restart` restarts, and are evicted one batch at a time.
import { AppsV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { postRaw } from '../support/routers.js';

const NS = 'plans';
const JOB = { apiVersion: 'batch/v1', kind: 'Job', name: 'migrate', uid: 'job-uid-migrate' };

function names(h: Harness, labels: Record<string, string>): string[] {
  return h.sim
    .listPods(NS, labels)
    .map((pod) => pod.metadata.name)
    .sort();
}

/** The ReplicaSets whose pods carry `labels`, by their controller's names. */
function replicaSetsOf(h: Harness, labels: Record<string, string>): Set<string> {
  return new Set(
    h.sim
      .listPods(NS, labels)
      .map((pod) => pod.metadata.ownerReferences?.find((ref) => ref.controller))
      .filter((ref) => ref?.kind === 'ReplicaSet')
      .map((ref) => ref!.name),
  );
}

/** Two ReplicaSets of one Deployment: a restart whose surge pod never becomes Ready. */
function midRollout(h: Harness): void {
  h.sim.addWorkload({
    namespace: NS,
    name: 'web',
    kind: 'Deployment',
    labels: { app: 'web' },
    replicas: 3,
    maxSurge: 1,
    maxUnavailable: 0,
    readinessDelayMs: null,
  });
  h.sim.restartWorkload('Deployment', NS, 'web', '2026-01-01T00:00:00Z');
}

/** A ReplicaSet created on its own, as a person or an older tool may have: no Deployment owns it. */
async function bareReplicaSet(h: Harness): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromString(h.sim.kubeconfigYaml());
  const labels = { app: 'cache' };
  await kc.makeApiClient(AppsV1Api).createNamespacedReplicaSet({
    namespace: NS,
    body: {
      metadata: { name: 'cache', labels },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'cache', image: 'c:1' }] } },
      },
    },
  });
}

/** A Job's pods; nothing in the simulator replaces them, so the test does when one is evicted. */
function jobPods(h: Harness): () => void {
  for (const name of ['migrate-a', 'migrate-b']) {
    h.sim.addPod({ namespace: NS, name, labels: { app: 'migrate' }, controller: JOB });
  }
  let replaced = 0;
  return h.sim.onPodDeleted((pod) => {
    if (!pod.name.startsWith('migrate-')) return;
    replaced += 1;
    h.sim.addPod({
      namespace: NS,
      name: `migrate-retry-${replaced}`,
      labels: { app: 'migrate' },
      controller: JOB,
    });
  });
}

describe('bounceMode rollout: the dry run plans what the worker does', () => {
  let h: Harness;
  let stopJob: () => void;
  let plan: any;
  const selector = (labels: Record<string, string>) => ({
    namespace: NS,
    labels,
    waitForReplicas: 0,
    bounceMode: 'rollout',
    maxUnavailable: 1,
  });

  beforeAll(async () => {
    h = await startHarness('dryrun-rollout');
    midRollout(h);
    await bareReplicaSet(h);
    stopJob = jobPods(h);
    h.sim.applyDirective(
      directive(NS, 'plans', [
        selector({ app: 'web' }),
        selector({ app: 'cache' }),
        selector({ app: 'migrate' }),
      ]),
    );
    await waitForPods(h, { app: 'cache' }, 2);
    expect(replicaSetsOf(h, { app: 'web' }).size).toBe(2);
    const answer = await postRaw(
      h,
      JSON.stringify({ directive: { namespace: NS, name: 'plans' } }),
      { 'content-type': 'application/json' },
      '?dryRun=true',
    );
    expect(answer.status).toBe(200);
    plan = answer.body;
  });
  afterAll(async () => {
    stopJob();
    await h.close();
  });

  it('plans one owner restart for a Deployment in mid-rollout (two ReplicaSets)', () => {
    const [web] = plan.selectors;
    expect(web).toMatchObject({ bounceMode: 'rollout', maxUnavailable: 1 });
    expect(web.pods).toHaveLength(4);
    expect(web.batches.map((batch: string[]) => [...batch].sort())).toEqual([
      names(h, { app: 'web' }),
    ]);
  });

  it('plans evictions for the pods of a ReplicaSet no Deployment owns', () => {
    const cache = plan.selectors[1];
    expect(cache.batches).toEqual(names(h, { app: 'cache' }).map((name) => [name]));
  });

  it('plans evictions for the pods of a Job', () => {
    const job = plan.selectors[2];
    expect(job.batches).toEqual([['migrate-a'], ['migrate-b']]);
  });

  it('then restarts exactly the owners it planned and evicts exactly the pods it planned', async () => {
    h.sim.setReadinessDelay(NS, 'web', 20);
    h.sim.resetRequests();
    const posted = await h.post({ directive: { namespace: NS, name: 'plans' } });
    expect(posted.status).toBe(202);
    await waitForState(h, NS, 'plans', 'FINISHED', 60_000);

    const requests = h.sim.requests().filter((r) => !r.watch && r.method !== 'GET');
    const restarts = requests.filter(
      (r) =>
        r.method === 'PATCH' &&
        ['deployments', 'replicasets', 'statefulsets', 'daemonsets'].includes(r.resource),
    );
    expect(restarts.map((r) => `${r.resource}/${r.name}`)).toEqual(['deployments/web']);
    const evictions = requests.filter((r) => r.subresource === 'eviction').map((r) => r.name!);
    const [web, cache, job] = plan.selectors;
    const evictedOf = (selectorPlan: any) =>
      evictions.filter((name) => selectorPlan.pods.some((pod: any) => pod.name === name));
    // With maxUnavailable 1, each batch of the plan is one act of the worker, in the plan's
    // order: an owner restarted, or a pod evicted.
    expect(web.batches).toHaveLength(restarts.length + evictedOf(web).length);
    expect(cache.batches).toEqual(evictedOf(cache).map((name) => [name]));
    expect(job.batches).toEqual(evictedOf(job).map((name) => [name]));
    expect(evictions).toEqual([...cache.batches.flat(), ...job.batches.flat()]);
    expect(requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    // Every pod the plan named is gone: the Deployment's by its rollout, the others by eviction.
    const live = new Set(h.sim.listPods(NS).map((pod) => pod.metadata.uid));
    for (const selectorPlan of [web, cache, job]) {
      for (const pod of selectorPlan.pods) expect(live.has(pod.uid), pod.name).toBe(false);
    }
  });
});

async function waitForPods(h: Harness, labels: Record<string, string>, count: number) {
  const deadline = Date.now() + 5000;
  while (h.sim.listPods(NS, labels).length < count) {
    if (Date.now() > deadline) throw new Error(`no ${count} pods with ${JSON.stringify(labels)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
