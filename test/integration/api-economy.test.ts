// Requests pod-bouncer sends per bounced pod and per selector, from the simulator's request log,
// with warm watch caches. Watch streams and the informers' namespace-wide LISTs are counted
// apart: they are per process and namespace, not per directive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/sim/index.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
  ALL_AT_ONCE,
} from '../support/harness.js';

const PODS = 10;
const APPS = ['alpha', 'beta'];

function isInformer(r: RequestLogEntry): boolean {
  return (
    r.watch || (r.method === 'GET' && r.name === undefined && !r.query.includes('labelSelector'))
  );
}

/** Requests by method and resource, as the benchmark's breakdown names them. */
function kinds(requests: RequestLogEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) {
    const key = `${r.method} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe('API economy', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('apieco', { env: ALL_AT_ONCE });
    for (const app of APPS) {
      h.sim.addWorkload({
        namespace: `ns-${app}`,
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: PODS,
      });
    }
  });
  afterAll(async () => h.close());

  function create(name: string): void {
    h.sim.applyDirective(
      directive('ns-alpha', name, [
        { namespace: 'ns-alpha', labels: { app: 'alpha' }, waitForReplicas: PODS },
        { namespace: 'ns-beta', labels: { app: 'beta' }, waitForReplicas: PODS },
      ]),
    );
  }

  let connections = 0;

  async function run(name: string, readinessDelayMs: number): Promise<RequestLogEntry[]> {
    for (const app of APPS) h.sim.setReadinessDelay(`ns-${app}`, app, readinessDelayMs);
    h.sim.resetRequests();
    const connectionsBefore = h.sim.connectionsAccepted();
    // PENDING follows the answer; the worker waits for it so the count below is the same every
    // time (a worker faster than it makes the late PENDING a conflict, its re-read, no write).
    await h.work?.worker.pause();
    expect((await h.post({ directive: { namespace: 'ns-alpha', name } })).status).toBe(202);
    await eventually(`${name} PENDING`, () =>
      h.sim.getDirective('ns-alpha', name)?.status?.state === 'PENDING' ? true : undefined,
    );
    await h.work?.worker.resume();
    await waitForState(h, 'ns-alpha', name, 'FINISHED');
    // The Event of the last transition follows its status write.
    await eventually(`${name}'s Finished Event`, () =>
      h.sim.events().some((e: any) => e.reason === 'Finished' && e.involvedObject?.name === name)
        ? true
        : undefined,
    );
    connections = h.sim.connectionsAccepted() - connectionsBefore;
    return h.sim.requests().filter((r) => !isInformer(r));
  }

  it('spends one request per pod and a constant per selector, whatever the readiness delay', async () => {
    // Created before the warm-up run, whose first reads start the api's and worker's watches.
    for (const name of ['warm-up', 'quick', 'slow']) create(name);
    await run('warm-up', 0);
    const quick = await run('quick', 100);
    const slow = await run('slow', 1500);
    const selectors = APPS.length;
    for (const requests of [quick, slow]) {
      const deletes = requests.filter((r) => r.method === 'DELETE');
      expect(deletes).toHaveLength(PODS * selectors);
      // Per selector: a LIST, a status patch and its Event (the first one also says BOUNCING_PODS);
      // per directive: the ingest's fresh read of the directive, then PENDING and FINISHED, each a
      // patch and an Event. The worker never GETs the directive; no LIST for a re-check.
      const rest = requests.filter((r) => r.method !== 'DELETE');
      expect(kinds(rest)).toEqual({
        'GET podbouncedirectives': 1,
        'PATCH podbouncedirectives/status': 2 + selectors,
        'GET pods': selectors,
        'POST events': 2 + selectors,
      });
    }
    // Fourteen more delayed re-checks during the slow wait cost nothing.
    expect(slow.length).toBe(quick.length);
  });

  it('keeps connections to the API server alive, DELETEs included', async () => {
    create('kept-alive');
    const requests = await run('kept-alive', 100);
    // A DELETE carries a body (its uid precondition), after which undici would close the
    // connection: one new connection per bounced pod. Reused, a run opens a handful at most.
    expect(requests.filter((r) => r.method === 'DELETE')).toHaveLength(PODS * APPS.length);
    expect(connections).toBeLessThanOrEqual(PODS / 2);
  });

  it('writes one status message per gated batch: the batch count rides on its wait', async () => {
    // Two pods one at a time, each replacement Ready 6 s after it is created: the wait before the
    // second batch and the wait for the replicas after it are each far longer than the 2 s rate
    // limit, so each is written once; the second batch's own count is not (its wait says more).
    h.sim.addWorkload({
      namespace: 'ns-gamma',
      name: 'gamma',
      kind: 'ReplicaSet',
      labels: { app: 'gamma' },
      replicas: 2,
      readinessDelayMs: 6000,
    });
    h.sim.applyDirective(
      directive('ns-alpha', 'gated', [
        { namespace: 'ns-gamma', labels: { app: 'gamma' }, waitForReplicas: 2, maxUnavailable: 1 },
      ]),
    );
    const rest = (await run('gated', 0)).filter((r) => r.method !== 'DELETE');
    // PENDING, the pods chosen (with BOUNCING_PODS), the two waits' messages, FINISHED; an Event
    // for each transition (Accepted, Bouncing, Finished) and none for a message. The ReplicaSet's
    // scale, read before the first batch and once the second batch's replacement is Ready, no
    // longer costs 2 GETs: the namespace's ReplicaSet watch, started when the pods are chosen,
    // has listed by then (its LIST and stream are counted apart, below).
    expect(kinds(rest)).toEqual({
      'GET podbouncedirectives': 1,
      'PATCH podbouncedirectives/status': 5,
      'GET pods': 1,
      'POST events': 3,
    });
    const sets = h.sim
      .requests()
      .filter((r) => r.resource === 'replicasets' && r.namespace === 'ns-gamma');
    expect(sets.map((r) => (r.watch ? 'watch' : 'list'))).toEqual(['list', 'watch']);
  });
});
