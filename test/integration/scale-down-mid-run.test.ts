// DESIGN §4: a FINISHED run has every pod it chose replaced, or no longer wanted by its owner. An
// owner scaled down mid-run (12 -> 5 just after the first eviction, maxUnavailable 3) never
// replaces the pods it no longer wants: the batch gate waited for those replacements until the
// readiness timeout failed the run, with the owner at its new scale and every pod Ready. Its scale
// releases them now, and nothing else changes: each eviction is sampled when the watch shows it
// (the owner's wanted pods less those Ready and not terminating stay within maxUnavailable), and
// each chosen pod is evicted at most once (a pod the scale-down removed first is answered 404).
import {
  AppsV1Api,
  KubeConfig,
  PatchStrategy,
  Watch,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPodReady, isTerminating } from '../../src/sim/pod-factory.js';
import { LogCapture } from '../support/log-capture.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { settled } from '../support/workloads.js';

const REPLICAS = 12;
const SCALED = 5;
const MAX_UNAVAILABLE = 3;

describe('an owner scaled down mid-run', () => {
  let h: Harness;
  let kc: KubeConfig;
  const logs = new LogCapture();
  beforeAll(async () => {
    // Seconds, not minutes: a gate waiting for replacements that never come fails the run soon.
    h = await startHarness('scale-down', {
      env: { READINESS_TIMEOUT_SECONDS: '8', LOG_LEVEL: 'info' },
      logDestination: logs,
    });
    kc = new KubeConfig();
    kc.loadFromString(h.sim.kubeconfigYaml());
  });
  afterAll(async () => h.close());

  /**
   * Runs the directive on `kind` web (12 pods); the moment the first chosen pod is terminating,
   * scales it to 5 through the API. Returns the most pods found down at an eviction, and the
   * evictions' answers by pod name.
   */
  async function scaledDownMidRun(namespace: string, kind: 'Deployment' | 'StatefulSet') {
    h.sim.addWorkload({
      namespace,
      name: 'web',
      kind,
      labels: { app: 'web' },
      replicas: REPLICAS,
      readinessDelayMs: 800,
      terminationGraceMs: 300,
    });
    await settled(h, namespace, REPLICAS);
    const chosen = new Set(h.sim.listPods(namespace, { app: 'web' }).map((p) => p.metadata.uid));
    h.sim.applyDirective(
      directive(namespace, 'certs', [
        { namespace, labels: { app: 'web' }, maxUnavailable: MAX_UNAVAILABLE, bounceMode: 'evict' },
      ]),
    );
    const apps = kc.makeApiClient(AppsV1Api);
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const scale = async () => {
      const params = { namespace, name: 'web', body: { spec: { replicas: SCALED } } };
      if (kind === 'Deployment') await apps.patchNamespacedDeployment(params, merge);
      else await apps.patchNamespacedStatefulSet(params, merge);
    };
    let wanted = REPLICAS;
    let worst = 0;
    let scaled: Promise<void> | undefined;
    const seen = new Set<string>();
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
        worst = Math.max(worst, wanted - healthy);
        if (scaled === undefined) {
          wanted = SCALED;
          scaled = scale();
        }
      },
      () => undefined,
    );
    h.sim.resetRequests();
    expect((await h.post({ directive: { namespace, name: 'certs' } })).status).toBe(202);
    await waitForState(h, namespace, 'certs', 'FINISHED', 60_000);
    request.abort();
    await scaled;
    await settled(h, namespace, SCALED);
    // Every pod it chose was replaced, or is no longer wanted by its owner: none of them is left.
    const left = h.sim
      .listPods(namespace, { app: 'web' })
      .filter((p) => chosen.has(p.metadata.uid));
    expect(left).toHaveLength(0);
    const evictions = new Map<string, number[]>();
    for (const r of h.sim.requests()) {
      if (r.namespace !== namespace || r.subresource !== 'eviction') continue;
      evictions.set(r.name ?? '', [...(evictions.get(r.name ?? '') ?? []), r.status]);
    }
    // The simulator's count of the requests that reached each chosen pod: at most one.
    const requests = h.sim.deleteRequestsByUid();
    expect(Math.max(...[...chosen].map((uid) => requests.get(uid) ?? 0))).toBeLessThanOrEqual(1);
    return { worst, evictions };
  }

  function expectOneBounceEach(evictions: Map<string, number[]>): void {
    const answers = [...evictions.values()].flat();
    console.log(`answers to the evictions: ${answers.join(' ')}`);
    // Every chosen pod was reached: evicted, or found gone (the scale-down's).
    expect(evictions.size).toBe(REPLICAS);
    // One request each, never another: evicted, or answered 404 when already gone.
    for (const statuses of evictions.values()) {
      expect(statuses).toHaveLength(1);
      expect([200, 201, 404]).toContain(statuses[0]);
    }
  }

  const noted = (namespace: string) =>
    logs
      .lines()
      .some((line) => line.includes('no longer wanted by their owner') && line.includes(namespace));

  it('a Deployment scaled 12 -> 5 ends FINISHED, never more than maxUnavailable down', async () => {
    const namespace = 'deploy-down';
    const { worst, evictions } = await scaledDownMidRun(namespace, 'Deployment');
    console.log(`${namespace}: most pods down at an eviction ${worst}`);
    expect(worst).toBeLessThanOrEqual(MAX_UNAVAILABLE);
    expectOneBounceEach(evictions);
    expect(noted(namespace)).toBe(true);
  }, 90_000);

  it('a StatefulSet scaled 12 -> 5 ends FINISHED, never more than maxUnavailable down', async () => {
    const namespace = 'sts-down';
    const { worst, evictions } = await scaledDownMidRun(namespace, 'StatefulSet');
    console.log(`${namespace}: most pods down at an eviction ${worst}`);
    expect(worst).toBeLessThanOrEqual(MAX_UNAVAILABLE);
    expectOneBounceEach(evictions);
    expect(noted(namespace)).toBe(true);
  }, 90_000);
});
