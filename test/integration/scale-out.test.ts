import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachDeletedOnce } from '../support/guarantees.js';
import { directive, eventually, startHarness, TOKEN, type Harness } from '../support/harness.js';
import { startCli, stopCli, type CliProcess } from '../support/processes.js';
import { freePort } from '../support/redis-server.js';

const DIRECTIVES = 200;
// About 30 s on an idle 2-core machine; the limits leave room for a CI box that runs other suites.
const FINISH_WITHIN_MS = 140_000;

function isReady(pod: any): boolean {
  return (
    !pod.metadata.deletionTimestamp &&
    pod.status.conditions.some((c: any) => c.type === 'Ready' && c.status === 'True')
  );
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>) {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += limit) {
    results.push(...(await Promise.all(items.slice(start, start + limit).map(work))));
  }
  return results;
}

describe('3 worker processes and 2 api processes on one Redis', () => {
  let h: Harness;
  const processes: CliProcess[] = [];
  const apis: string[] = [];

  beforeAll(async () => {
    h = await startHarness('scale', { worker: false });
    const env = {
      ...h.env,
      KUBE_QPS: '5000',
      KUBE_BURST: '5000',
      WORKER_CONCURRENCY: '10',
      LOG_LEVEL: 'warn',
    };
    for (let index = 0; index < 3; index += 1) processes.push(startCli('work', env));
    for (let index = 0; index < 2; index += 1) {
      const port = await freePort();
      processes.push(startCli('serve', { ...env, PORT: String(port) }));
      apis.push(`http://127.0.0.1:${port}`);
    }
    await eventually(
      'the api processes to listen and the three workers to register',
      async () => {
        const up = await Promise.all(
          apis.map((url) =>
            fetch(`${url}/healthz`).then(
              (r) => r.ok,
              () => false,
            ),
          ),
        );
        const workers = await h.serve.queue.getWorkersCount();
        return up.every(Boolean) && workers === 3 ? true : undefined;
      },
      30_000,
    );
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => stopCli(p, 'SIGKILL')));
    await h?.close();
  });

  it(
    'runs 200 two-selector directives, each pod deleted once and every chain in order',
    async () => {
      const names = Array.from({ length: DIRECTIVES }, (_, i) => `scale-${i}`);
      for (const ns of names) {
        h.sim.addWorkload({
          namespace: ns,
          name: 'istiod',
          kind: 'ReplicaSet',
          labels: { app: 'istiod' },
          replicas: 1,
          readinessDelayMs: 50,
        });
        h.sim.addWorkload({
          namespace: ns,
          name: 'gateway',
          kind: 'StatefulSet',
          labels: { app: 'gateway' },
          replicas: 1,
        });
        h.sim.applyDirective(
          directive(ns, 'certs', [
            { namespace: ns, labels: { app: 'istiod' }, waitForReplicas: 1 },
            { namespace: ns, labels: { app: 'gateway' }, waitForReplicas: 1 },
          ]),
        );
      }
      const originals = names.flatMap((ns) => h.sim.listPods(ns).map((p) => p.metadata.uid));
      const firstIstiod = new Map(
        names.map((ns) => [ns, h.sim.listPods(ns, { app: 'istiod' })[0]!.metadata.uid]),
      );
      // Chain order: a gateway pod goes only once a replacement istiod of its namespace is Ready.
      const outOfOrder: string[] = [];
      h.sim.onPodDeleted((pod) => {
        if (!pod.name.startsWith('gateway')) return;
        const replaced = h.sim
          .listPods(pod.namespace, { app: 'istiod' })
          .some((p) => p.metadata.uid !== firstIstiod.get(pod.namespace) && isReady(p));
        if (!replaced) outOfOrder.push(pod.namespace);
      });

      // Every event goes to both api processes at once: exactly one of each pair is first.
      const post = async (url: string, ns: string) => {
        const response = await fetch(`${url}/v1/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify({ directive: { namespace: ns, name: 'certs' } }),
        });
        return { status: response.status, body: (await response.json()) as any };
      };
      const answers = await inBatches(names, 20, (ns) =>
        Promise.all(apis.map((url) => post(url, ns))),
      );
      for (const pair of answers) {
        expect(pair.map((a) => a.status)).toEqual([202, 202]);
        expect(pair.filter((a) => a.body.duplicate === false)).toHaveLength(1);
      }

      const unfinished = await eventually(
        'every directive to be FINISHED',
        () => {
          const states = names.map((ns) => h.sim.getDirective(ns, 'certs')?.status?.state);
          const failed = states.filter((s) => s === 'FAILED').length;
          if (failed > 0) throw new Error(`${failed} directives FAILED`);
          return states.every((s) => s === 'FINISHED') ? [] : undefined;
        },
        FINISH_WITHIN_MS,
      );
      expect(unfinished).toEqual([]);
      expect(outOfOrder).toEqual([]);
      expectEachDeletedOnce(h, originals);
    },
    FINISH_WITHIN_MS + 10_000,
  );
});
