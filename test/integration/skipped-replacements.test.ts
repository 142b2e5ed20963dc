// DESIGN §4 Guarantees: before each batch after the first, a selector waits for Ready replacements
// of the pods it bounced. A pod the run left alone because it was created at or after issuedAt
// (replaced meanwhile by a drain, a crash, a kubectl delete), or an earlier selector's replacement,
// replaces none of them: it must not let the next batch go. Sampled on every pod event.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPodReady, isTerminating } from '../../src/sim/pod-factory.js';
import { probeAvailability } from '../support/availability.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const uidsOf = (pods: readonly { metadata: { uid?: string } }[]) =>
  pods.map((pod) => pod.metadata.uid ?? '');

describe('pods left alone are no replacements', () => {
  let h: Harness;
  let core: CoreV1Api;
  beforeAll(async () => {
    h = await startHarness('skipped-replacements');
    const kc = new KubeConfig();
    kc.loadFromString(h.sim.kubeconfigYaml());
    core = kc.makeApiClient(CoreV1Api);
  });
  afterAll(async () => h.close());

  /** All `count` pods of the selector Ready and none terminating. */
  const allReady = (namespace: string, labels: Record<string, string>, count: number) =>
    eventually(`${count} pods Ready in ${namespace}`, () => {
      const pods = h.sim.listPods(namespace, labels);
      const ready = pods.filter((pod) => isPodReady(pod) && !isTerminating(pod));
      return pods.length === count && ready.length === count ? true : undefined;
    });

  it('pods re-created after issuedAt do not let the chosen pods go at once', async () => {
    const namespace = 'skipped';
    const labels = { app: 'web' };
    const replicas = 8;
    h.sim.addWorkload({
      namespace,
      name: 'web',
      kind: 'ReplicaSet',
      labels,
      replicas,
      readinessDelayMs: 800,
      terminationGraceMs: 300,
    });
    await allReady(namespace, labels, replicas);
    h.sim.applyDirective(
      directive(namespace, 'certs', [{ namespace, labels, maxUnavailable: 1, waitForReplicas: 0 }]),
    );
    await sleep(1100);
    const issuedAt = new Date().toISOString();
    await sleep(1100);
    // Half the pods replaced by other means after issuedAt: the run skips them.
    const pods = h.sim.listPods(namespace, labels);
    const olds = uidsOf(pods.slice(4));
    for (const pod of pods.slice(0, 4)) {
      await core.deleteNamespacedPod({ namespace, name: pod.metadata.name ?? '' });
    }
    await allReady(namespace, labels, replicas);
    const skipped = uidsOf(h.sim.listPods(namespace, labels)).filter((uid) => !olds.includes(uid));
    const probe = await probeAvailability(h, namespace, labels, replicas);
    const before = h.sim.deleteRequestsByUid();
    expect((await h.post({ directive: { namespace, name: 'certs' }, issuedAt })).status).toBe(202);
    await waitForState(h, namespace, 'certs', 'FINISHED', 60_000);
    probe.stop();
    console.log(`${namespace}: max unavailable ${probe.maxUnavailable} of ${replicas}`);
    expect(probe.maxUnavailable).toBeLessThanOrEqual(1);
    const requests = h.sim.deleteRequestsByUid();
    for (const uid of olds) expect(requests.get(uid), uid).toBe(1);
    for (const uid of skipped) expect(requests.get(uid) ?? 0, uid).toBe(before.get(uid) ?? 0);
  }, 90_000);

  it("a later selector does not count an earlier selector's replacements as its own", async () => {
    const namespace = 'sequential';
    for (const app of ['web', 'api']) {
      h.sim.addWorkload({
        namespace,
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 4,
        readinessDelayMs: 1500,
        terminationGraceMs: 300,
      });
    }
    await allReady(namespace, {}, 8);
    // The second selector (every pod of the namespace) starts once the web pods' replacements
    // are Ready, more than a second after they were created.
    h.sim.applyDirective(
      directive(namespace, 'certs', [
        { namespace, labels: { app: 'web' }, maxUnavailable: 4, waitForReplicas: 4 },
        { namespace, labels: {}, maxUnavailable: 3, waitForReplicas: 0 },
      ]),
    );
    const api = uidsOf(h.sim.listPods(namespace, { app: 'api' }));
    const probe = await probeAvailability(h, namespace, { app: 'api' }, 4);
    expect((await h.post({ directive: { namespace, name: 'certs' } })).status).toBe(202);
    await waitForState(h, namespace, 'certs', 'FINISHED', 60_000);
    probe.stop();
    console.log(`${namespace}: max api pods unavailable ${probe.maxUnavailable} of 4`);
    expect(probe.maxUnavailable).toBeLessThanOrEqual(3);
    const requests = h.sim.deleteRequestsByUid();
    for (const uid of api) expect(requests.get(uid), uid).toBe(1);
  }, 90_000);
});
