import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';
import { LogCapture } from '../support/log-capture.js';

/** How often /readyz may ask the API server, whatever the number of probes (DESIGN §3). */
const PROBE_EVERY_MS = 5000;

const versionReads = (h: Harness): number =>
  h.sim.requests().filter((request) => request.path === '/version').length;

const probe = async (h: Harness): Promise<{ status: number; body: Record<string, string> }> => {
  const answer = await fetch(`${h.serve.url}/readyz`);
  return { status: answer.status, body: (await answer.json()) as Record<string, string> };
};

describe('/readyz', () => {
  let h: Harness;
  const capture = new LogCapture();
  const unreachable = (): number =>
    capture.lines().filter((line) => line.includes('The Kubernetes API is not reachable')).length;
  beforeAll(async () => {
    h = await startHarness('readyz', {
      worker: false,
      logDestination: capture,
      env: { LOG_LEVEL: 'info' },
    });
  });
  afterAll(async () => h.close());

  it('costs at most one API call per 5 s, however many probes come, concurrent or not', async () => {
    h.sim.resetRequests();
    const started = Date.now();
    const concurrent = await Promise.all(Array.from({ length: 100 }, () => probe(h)));
    for (let i = 0; i < 100; i += 1) expect((await probe(h)).body.kubernetes).toBe('ok');
    expect(concurrent.map((answer) => answer.body.kubernetes)).toEqual(Array(100).fill('ok'));
    const windows = Math.floor((Date.now() - started) / PROBE_EVERY_MS) + 1;
    expect(versionReads(h)).toBeLessThanOrEqual(windows);
  });

  it(
    'stays ready while the Kubernetes API fails, says so in the body, and warns once',
    { timeout: 30_000 },
    async () => {
      const warnedBefore = unreachable();
      h.sim.setFaults({ errorRate: 1, status: 503 });
      try {
        const ready = await eventually('/readyz to see the API server fail', async () => {
          const answer = await probe(h);
          return answer.body.kubernetes === 'ok' ? undefined : answer;
        });
        expect(ready.status).toBe(200);
        expect(ready.body).toMatchObject({
          status: 'ready',
          redis: 'ok',
          kubernetes: 'unreachable',
        });
        // Many more probes while it stays down: the state is told once, not once per probe.
        for (let i = 0; i < 50; i += 1)
          expect((await probe(h)).body.kubernetes).toBe('unreachable');
        // Senders get the designed 503 with Retry-After instead of a refused connection.
        const event = await h.post({ directive: { namespace: 'istio-system', name: 'any' } });
        expect(event.status).toBe(503);
        expect(event.headers.get('retry-after')).not.toBeNull();
      } finally {
        h.sim.setFaults(null);
      }
      await eventually('/readyz to see the API server back', async () =>
        (await probe(h)).body.kubernetes === 'ok' ? true : undefined,
      );
      expect(unreachable() - warnedBefore).toBe(1);
      expect(capture.text()).toContain('The Kubernetes API is reachable again');
    },
  );
});

describe('/readyz while the api has queued work for the API server', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('readyz-busy', {
      worker: false,
      env: { KUBE_QPS: '1', KUBE_BURST: '1' },
    });
    h.sim.applyDirective(directive('busy', 'certs', [{ namespace: 'busy', labels: {} }]));
  });
  afterAll(async () => h.close());

  it('is not queued behind that work: the API server is reported reachable', async () => {
    // Ten reads queued at one a second: a probe that waited behind them would time out (2 s).
    const queued = Promise.allSettled(
      Array.from({ length: 10 }, () => h.kube.getDirective({ namespace: 'busy', name: 'certs' })),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const answer = await probe(h);
    expect(answer.body.kubernetes).toBe('ok');
    await queued;
  }, 30_000);
});
