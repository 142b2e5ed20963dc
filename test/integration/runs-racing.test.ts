import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelectorJobData } from '../../src/queue/selector-job.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const TRIALS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One istiod replica whose evicted pods stay Terminating for 2 s, and a directive for it. */
function addMesh(h: Harness, namespace: string): void {
  h.sim.addWorkload({
    namespace,
    name: 'istiod',
    kind: 'ReplicaSet',
    labels: { app: 'istiod' },
    replicas: 1,
    readinessDelayMs: 50,
    terminationGraceMs: 2000,
  });
  h.sim.applyDirective(
    directive(namespace, 'mesh-certs', [
      { namespace, labels: { app: 'istiod' }, waitForReplicas: 1 },
    ]),
  );
}

/** Every job of the queue, once none is waiting, delayed or running any more. */
async function settledJobs(h: Harness) {
  await eventually(
    'every run to end',
    async () => {
      const counts = await h.serve.queue.getJobCounts(
        'waiting',
        'prioritized',
        'delayed',
        'active',
        'waiting-children',
      );
      return Object.values(counts).every((count) => count === 0) ? true : undefined;
    },
    60_000,
  );
  return h.serve.queue.getJobs(['completed', 'failed']);
}

describe('one run bounces at a time per directive', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('racing');
  });
  afterAll(async () => h.close());

  it('three events at once, each a later issuance: the pod is evicted once, its replacement never', async () => {
    const namespaces = Array.from({ length: TRIALS }, (_, trial) => `race-${trial}`);
    for (const namespace of namespaces) addMesh(h, namespace);
    // Every issuance is later than the pods' creation second and earlier than any replacement's.
    await sleep(2000);
    const second = Math.floor(Date.now() / 1000) * 1000 - 1000;
    const at = (ms: number) => new Date(second + ms).toISOString();
    const originals = new Set<string>();

    for (const [trial, namespace] of namespaces.entries()) {
      const [original] = h.sim
        .listPods(namespace, { app: 'istiod' })
        .map((pod) => pod.metadata.uid);
      originals.add(original!);
      // Sent a few ms apart (none in some trials), each before the one before it is answered:
      // they land in commits of their own or together, while the first runs' jobs start.
      const gap = trial % 4 === 0 ? 0 : 5;
      const answers = await Promise.all(
        [1, 2, 3].map(async (ms, index) => {
          await sleep(index * gap);
          return h.post({ directive: { namespace, name: 'mesh-certs' }, issuedAt: at(ms) });
        }),
      );
      expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202]);
      // The latest run finishes, and the status tells it, not an older one.
      await eventually(`${namespace} to finish the run of ${at(3)}`, () => {
        const status = h.sim.getDirective(namespace, 'mesh-certs')?.status;
        return status?.state === 'FINISHED' && status.issuedAt === at(3) ? true : undefined;
      });
    }
    // Once every run has ended: each original pod was sent one eviction, and no replacement any.
    await settledJobs(h);
    const requests = h.sim.deleteRequestsByUid();
    expect([...requests.keys()].sort()).toEqual([...originals].sort());
    for (const [uid, count] of requests) expect(count, uid).toBe(1);
  });

  it('bursts of 100 events with increasing issuedAt: no pod is sent a second eviction', async () => {
    const namespaces = ['burst-0', 'burst-1', 'burst-2', 'burst-3'];
    for (const namespace of namespaces) addMesh(h, namespace);
    await sleep(1100);
    const before = new Set(h.sim.deleteRequestsByUid().keys());
    for (const namespace of namespaces) {
      // Each issuedAt a little further ahead of the clock, an event every 5 ms.
      const base = Date.now() + 2000;
      const answers = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          await sleep(i * 5);
          return h.post({
            directive: { namespace, name: 'mesh-certs' },
            issuedAt: new Date(base + i * 10).toISOString(),
          });
        }),
      );
      expect(answers.every((answer) => answer.status === 202)).toBe(true);
      await waitForState(h, namespace, 'mesh-certs', 'FINISHED', 60_000);
    }
    const jobs = await settledJobs(h);

    const requests = [...h.sim.deleteRequestsByUid()].filter(([uid]) => !before.has(uid));
    expect(requests.length).toBeGreaterThanOrEqual(namespaces.length);
    for (const [uid, count] of requests) expect(count, uid).toBe(1);

    // One replica: each pod after the first was created after the eviction before it. A run
    // bounces no pod created more than a second after it was accepted.
    for (const namespace of namespaces) {
      const evictions = h.sim
        .deletedPods()
        .filter((pod) => pod.namespace === namespace)
        .sort((a, b) => a.at - b.at);
      const notBefore = new Map(evictions.map((pod, i) => [pod.uid, evictions[i - 1]?.at ?? 0]));
      for (const job of jobs.filter(
        (candidate) => candidate.data.directive.namespace === namespace,
      )) {
        const data = job.data as SelectorJobData;
        for (const uid of data.progress.bounced ?? []) {
          expect(notBefore.get(uid)!, `${job.id} bounced ${uid}`).toBeLessThanOrEqual(
            job.timestamp + 1000,
          );
        }
      }
    }
  });
});
