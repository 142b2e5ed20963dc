// DESIGN §4 Guarantees: never more than maxUnavailable of a selector's pods down because of
// pod-bouncer. A scale-up (an autoscaler) or a drain just after the first eviction creates new
// pods of the same ReplicaSet, Ready soon, that no field tells from the bounced pods'
// replacements: counting them let every chosen pod go within milliseconds. Each eviction is
// sampled when the watch shows it: the Deployment's wanted pods less those Ready and not
// terminating must never exceed maxUnavailable (1) there.
import {
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  Watch,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPodReady, isTerminating } from '../../src/sim/pod-factory.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { settled } from '../support/workloads.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const REPLICAS = 8;

describe('new pods of a scale-up or a drain are no replacements', () => {
  let h: Harness;
  let kc: KubeConfig;
  beforeAll(async () => {
    h = await startHarness('scale-mid-run');
    kc = new KubeConfig();
    kc.loadFromString(h.sim.kubeconfigYaml());
  });
  afterAll(async () => h.close());

  /**
   * Runs the directive; the moment the first chosen pod is terminating, `disrupt` acts as another
   * party would (marking the pods it takes down as seen, so that they are not sampled). Returns the most pods found down at an eviction (wanted less Ready, not
   * terminating).
   */
  async function runWith(
    namespace: string,
    disrupt: (seen: Set<string>) => Promise<void>,
    wanted: () => number,
  ) {
    h.sim.addWorkload({
      namespace,
      name: 'web',
      kind: 'Deployment',
      labels: { app: 'web' },
      replicas: REPLICAS,
      readinessDelayMs: 800,
      terminationGraceMs: 300,
    });
    await settled(h, namespace, REPLICAS);
    const chosen = new Set(h.sim.listPods(namespace, { app: 'web' }).map((p) => p.metadata.uid));
    h.sim.applyDirective(
      directive(namespace, 'certs', [
        { namespace, labels: { app: 'web' }, maxUnavailable: 1, bounceMode: 'evict' },
      ]),
    );
    const seen = new Set<string>();
    let worst = 0;
    let disrupted: Promise<void> | undefined;
    const request = await new Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/pods`,
      {},
      (_type, pod: { metadata: { uid: string; deletionTimestamp?: string } }) => {
        const uid = pod.metadata.uid;
        if (!chosen.has(uid) || pod.metadata.deletionTimestamp === undefined || seen.has(uid)) {
          return;
        }
        seen.add(uid);
        const healthy = h.sim
          .listPods(namespace, { app: 'web' })
          .filter((p) => isPodReady(p) && !isTerminating(p)).length;
        worst = Math.max(worst, wanted() - healthy);
        disrupted ??= disrupt(seen);
      },
      () => undefined,
    );
    expect((await h.post({ directive: { namespace, name: 'certs' } })).status).toBe(202);
    await waitForState(h, namespace, 'certs', 'FINISHED', 90_000);
    request.abort();
    await disrupted;
    return { worst };
  }

  it('a scale-up just after the first eviction does not let the chosen pods go at once', async () => {
    const namespace = 'scale-up';
    const apps = kc.makeApiClient(AppsV1Api);
    let replicas = REPLICAS;
    const { worst } = await runWith(
      namespace,
      async () => {
        replicas = 14;
        await apps.patchNamespacedDeployment(
          { namespace, name: 'web', body: { spec: { replicas } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      },
      () => replicas,
    );
    console.log(`${namespace}: most pods down at an eviction ${worst}`);
    expect(worst).toBeLessThanOrEqual(1);
  }, 120_000);

  it('a drain of other pods just after the first eviction counts them down', async () => {
    const namespace = 'drained';
    const core = kc.makeApiClient(CoreV1Api);
    const { worst } = await runWith(
      namespace,
      async (seen) => {
        // The pods bounced last: their replacements are Ready long before the run reaches them.
        await sleep(20);
        const alive = h.sim
          .listPods(namespace, { app: 'web' })
          .filter((pod) => !isTerminating(pod))
          .slice(-3);
        // Not pod-bouncer's evictions: not sampled.
        for (const pod of alive) seen.add(pod.metadata.uid ?? '');
        for (const pod of alive) {
          await core.deleteNamespacedPod({ namespace, name: pod.metadata.name ?? '' });
        }
      },
      () => REPLICAS,
    );
    console.log(`${namespace}: most pods down at an eviction ${worst}`);
    expect(worst).toBeLessThanOrEqual(1);
  }, 120_000);
});
