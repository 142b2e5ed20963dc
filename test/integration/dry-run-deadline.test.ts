// A dry run is bounded: past its deadline it answers a 503 with a JSON body (never a bare close
// of the connection), and once answered or abandoned by its client it starts no more reads.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, type Harness } from '../support/harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Each namespace's LIST is held this long: 20 namespaces, 4 at a time, take 10 s to plan. */
const LIST_MS = 2000;

describe('?dryRun=true within a bound', () => {
  let h: Harness;
  const podLists = () =>
    h.sim.requests().filter((r) => r.resource === 'pods' && !r.watch && r.name === undefined);
  const plan = (signal?: AbortSignal) =>
    fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${h.env.WEBHOOK_TOKENS}`,
      },
      body: JSON.stringify({ directive: { namespace: 'slow-0', name: 'wide' } }),
      ...(signal ? { signal } : {}),
    });

  beforeAll(async () => {
    // The deadline is the body timeout + 5 s: 6 s here, before the socket's 11 s backstop.
    h = await startHarness('dry-run-deadline', {
      worker: false,
      env: { BODY_TIMEOUT_SECONDS: '1' },
    });
    const selectors = Array.from({ length: 20 }, (_, n) => ({
      namespace: `slow-${n}`,
      labels: { app: 'web' },
    }));
    h.sim.applyDirective(directive('slow-0', 'wide', selectors));
  });
  afterEach(() => h.sim.setFaults(null));
  afterAll(async () => h.close());

  it('answers 503 with Retry-After and {error, message} when planning outlasts its deadline', async () => {
    h.sim.resetRequests();
    h.sim.setFaults({ latencyMs: LIST_MS, methods: ['GET'], resources: ['pods'] });
    const response = await plan();
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('10');
    expect(await response.json()).toEqual({
      error: 'unavailable',
      message: expect.stringMatching(
        /^Planning 20 selector\(s\) of slow-0\/wide did not finish within 6 s/,
      ),
    });
    // The reads in flight at the deadline finish; none starts after it.
    await sleep(LIST_MS + 500);
    const answered = podLists().length;
    expect(answered).toBeLessThan(20);
    await sleep(LIST_MS);
    expect(podLists().length).toBe(answered);
  });

  it('stops planning when its client closes the request', async () => {
    h.sim.resetRequests();
    h.sim.setFaults({ latencyMs: LIST_MS, methods: ['GET'], resources: ['pods'] });
    await expect(plan(AbortSignal.timeout(LIST_MS / 2))).rejects.toThrow();
    await sleep(2 * LIST_MS + 500);
    // Only the first few selectors' LISTs, started before the close.
    expect(podLists().length).toBeLessThanOrEqual(4);
  });
});
