// One namespace floods the worker with jobs (directives under fresh names, as one credential may
// send them); another namespace's small run must not wait behind all of their API requests. The
// client-side limiter serves each directive namespace's requests as a flow of its own, in turn:
// counted in the simulator's request log, the flood gets about one request per request of the
// small run while both wait. One queue for all would put the whole flood's backlog in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/sim/index.js';
import {
  ALL_AT_ONCE,
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

const FLOOD_DIRECTIVES = 16;
const FLOOD_SELECTORS = 8;

/** `selectors` workloads of two pods in `namespace`, and a directive bouncing them in a chain. */
function addDirective(h: Harness, namespace: string, name: string, selectors: number): void {
  const podsToBounce = [];
  for (let index = 0; index < selectors; index += 1) {
    const app = `${name}-w${index}`;
    h.sim.addWorkload({
      namespace,
      name: app,
      kind: 'ReplicaSet',
      labels: { app },
      replicas: 2,
      readinessDelayMs: 20,
    });
    podsToBounce.push({ namespace, labels: { app }, waitForReplicas: 0 });
  }
  h.sim.applyDirective(directive(namespace, name, podsToBounce));
}

/** Requests the gateway sends, through the limiter: the watch caches' own lists and watches are not. */
function limited(r: RequestLogEntry): boolean {
  const informerList =
    r.method === 'GET' && r.name === undefined && !r.query.includes('labelSelector');
  return !r.watch && !informerList;
}

describe('fair queuing of API requests by directive namespace', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('fair-qps', {
      env: { ...ALL_AT_ONCE, KUBE_QPS: '40', KUBE_BURST: '1', WORKER_CONCURRENCY: '30' },
    });
  });
  afterAll(async () => h.close());

  it('serves a small run in turn with a namespace full of jobs', { timeout: 90_000 }, async () => {
    for (let index = 0; index < FLOOD_DIRECTIVES; index += 1) {
      addDirective(h, 'flood', `fresh-${index}`, FLOOD_SELECTORS);
    }
    addDirective(h, 'victim', 'certs', 1);
    h.sim.resetRequests();
    for (let index = 0; index < FLOOD_DIRECTIVES; index += 1) {
      const answer = await h.post({ directive: { namespace: 'flood', name: `fresh-${index}` } });
      expect(answer.status).toBe(202);
    }
    // Every flood directive has a job sending requests: the flood's queue is as deep as that.
    await eventually('the flood under way', () => {
      const deletes = h.sim
        .requests()
        .filter((r) => r.namespace === 'flood' && r.method === 'DELETE');
      return deletes.length >= FLOOD_DIRECTIVES ? true : undefined;
    });
    expect((await h.post({ directive: { namespace: 'victim', name: 'certs' } })).status).toBe(202);
    await waitForState(h, 'victim', 'certs', 'FINISHED', 80_000);

    const log = h.sim.requests().filter(limited);
    const first = log.findIndex((r) => r.namespace === 'victim');
    const last = log.findLastIndex((r) => r.namespace === 'victim');
    const window = log.slice(first, last + 1);
    const victim = window.filter((r) => r.namespace === 'victim').length;
    const flood = window.filter((r) => r.namespace === 'flood').length;
    // Between two of the small run's requests, the flood's requests sent meanwhile.
    let gap = 0;
    let widest = 0;
    for (const r of window) {
      if (r.namespace === 'flood') gap += 1;
      if (r.namespace !== 'victim') continue;
      widest = Math.max(widest, gap);
      gap = 0;
    }
    console.log(
      `fair queuing: the small run's ${victim} requests had ${flood} of the flood's among them, at most ${widest} in a row`,
    );
    // The flood went on after the small run's end: its queue was not just running dry.
    await eventually('the flood going on', () => {
      const after = h.sim
        .requests()
        .filter(limited)
        .slice(last + 1);
      return after.filter((r) => r.namespace === 'flood').length >= 20 ? true : undefined;
    });
    expect(victim).toBeGreaterThanOrEqual(4);
    // Two flows with work waiting take turns (a request outside any job makes a third); the flood
    // alone is served while the small run works between its requests (Redis), hence some slack.
    // One queue for all puts the flood's whole backlog before each request: ~100 and 20 in a row.
    expect(flood).toBeLessThanOrEqual(2 * victim);
    expect(widest).toBeLessThanOrEqual(4);
  });
});
