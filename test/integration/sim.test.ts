// The simulator as a whole: faults, TokenReview, events, config objects, discovery, request log,
// the demo mesh, and a clean shutdown.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiException, CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import type { EventsV1Event } from '@kubernetes/client-node';
import { demoMesh } from '../../src/sim/index.js';
import { apiError, recordWatch, startWithClients, waitFor } from './sim-clients.js';
import type { SimClients } from './sim-clients.js';

const NS = 'bookinfo';

async function statusCodes(count: number, call: () => Promise<unknown>): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < count; i++) {
    try {
      await call();
      codes.push(200);
    } catch (err) {
      codes.push(err instanceof ApiException ? err.code : -1);
    }
  }
  return codes;
}

describe('simulator', () => {
  let c: SimClients;
  afterEach(async () => {
    await c.sim.close();
  });

  it('injects errors at the configured share, deterministically from the seed', async () => {
    c = await startWithClients({ seed: 42 });
    c.sim.setFaults({ errorRate: 0.3, status: 500 });
    const codes = await statusCodes(200, () => c.core.listNamespacedPod({ namespace: NS }));
    const failures = codes.filter((code) => code === 500).length;
    expect(failures).toBeGreaterThan(35);
    expect(failures).toBeLessThan(85);
    expect(codes.every((code) => code === 200 || code === 500)).toBe(true);

    const twin = await startWithClients({ seed: 42 });
    twin.sim.setFaults({ errorRate: 0.3, status: 500 });
    const replay = await statusCodes(200, () => twin.core.listNamespacedPod({ namespace: NS }));
    await twin.sim.close();
    expect(replay).toEqual(codes);
    expect(c.sim.requests().filter((r) => r.status === 500)).toHaveLength(failures);
  });

  it('answers 429 with Retry-After, only on the methods and resources it targets', async () => {
    c = await startWithClients();
    c.sim.addPod({ namespace: NS, name: 'p', labels: { app: 'p' } });
    c.sim.setFaults({
      errorRate: 1,
      status: 429,
      retryAfterSeconds: 7,
      methods: ['DELETE'],
      resources: ['pods'],
    });
    await c.core.listNamespacedPod({ namespace: NS });
    let caught: ApiException<string> | undefined;
    try {
      await c.core.deleteNamespacedPod({ namespace: NS, name: 'p' });
    } catch (err) {
      caught = err as ApiException<string>;
    }
    expect(caught?.code).toBe(429);
    expect(caught?.headers['retry-after']).toBe('7');
    expect(JSON.parse(caught!.body)).toMatchObject({ reason: 'TooManyRequests', code: 429 });
    // A failure injected before the request takes effect deletes nothing.
    expect(c.sim.listPods(NS)).toHaveLength(1);
    expect(c.sim.deletedPods()).toEqual([]);
    c.sim.setFaults(null);
    await c.core.deleteNamespacedPod({ namespace: NS, name: 'p' });
    expect(c.sim.deletedPods()).toHaveLength(1);
  });

  it('can lose the answer of a request that took effect, and add latency', async () => {
    c = await startWithClients();
    c.sim.addPod({ namespace: NS, name: 'p', labels: { app: 'p' } });
    c.sim.setFaults({
      errorRate: 1,
      status: 503,
      afterEffect: true,
      resources: ['pods'],
      methods: ['DELETE'],
    });
    await apiError(c.core.deleteNamespacedPod({ namespace: NS, name: 'p' }), 503);
    expect(c.sim.deletedPods()).toHaveLength(1);

    c.sim.setFaults({ latencyMs: 150 });
    const started = Date.now();
    await c.core.listNamespacedPod({ namespace: NS });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('reviews tokens, honouring audiences', async () => {
    c = await startWithClients();
    c.sim.registerToken('good', {
      username: 'system:serviceaccount:ci:issuer',
      uid: 'u-1',
      groups: ['system:serviceaccounts'],
      audiences: ['pod-bouncer'],
    });
    const review = (token: string, audiences?: string[]) =>
      c.auth.createTokenReview({
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token, audiences },
        },
      });

    const ok = await review('good', ['pod-bouncer', 'other']);
    expect(ok.status).toMatchObject({
      authenticated: true,
      user: { username: 'system:serviceaccount:ci:issuer', uid: 'u-1' },
      audiences: ['pod-bouncer'],
    });
    expect((await review('good', ['someone-else'])).status?.authenticated).toBe(false);
    expect((await review('good')).status?.authenticated).toBe(true);
    expect((await review('forged', ['pod-bouncer'])).status?.authenticated).toBe(false);
  });

  it('stores core and events.k8s.io Events, validating them like the API server', async () => {
    c = await startWithClients();
    const involvedObject = {
      kind: 'PodBounceDirective',
      namespace: 'istio-system',
      name: 'mesh',
      apiVersion: 'internal.gloo.solo.io/v2',
    };
    await c.core.createNamespacedEvent({
      namespace: 'istio-system',
      body: {
        metadata: { generateName: 'mesh.' },
        involvedObject,
        reason: 'Accepted',
        message: 'accepted generation 1',
        type: 'Normal',
      },
    });
    await c.eventsV1.createNamespacedEvent({
      namespace: 'istio-system',
      body: {
        metadata: { name: 'mesh.1' },
        eventTime: new Date(),
        reportingController: 'pod-bouncer',
        reportingInstance: 'pod-bouncer-0',
        action: 'Bounce',
        reason: 'Bounced',
        note: 'bounced 2 pods',
        type: 'Normal',
        regarding: involvedObject,
      },
    });
    const invalid = await apiError(
      c.eventsV1.createNamespacedEvent({
        namespace: 'istio-system',
        // Missing the fields events.k8s.io requires, which the generated type would not allow.
        body: { metadata: { name: 'bad' }, reason: 'X' } as unknown as EventsV1Event,
      }),
      422,
    );
    expect(invalid.message).toContain('reportingController: Required value');
    await apiError(
      c.core.createNamespacedEvent({
        namespace: 'default',
        body: { metadata: { name: 'elsewhere' }, involvedObject },
      }),
      422,
    );

    const events = c.sim.events() as Array<{ reason: string; metadata: { name: string } }>;
    expect(events.map((e) => e.reason)).toEqual(['Accepted', 'Bounced']);
    expect(events[0]!.metadata.name).toMatch(/^mesh\.[a-z0-9]{5}$/);
    expect((await c.core.listNamespacedEvent({ namespace: 'istio-system' })).items).toHaveLength(1);
  });

  it('serves ConfigMaps and Secrets put programmatically, Secrets base64-encoded', async () => {
    c = await startWithClients();
    c.sim.putConfigMap(NS, 'istio-ca-root-cert', { 'root-cert.pem': 'OLD' });
    c.sim.putSecret('istio-system', 'cacerts', { 'root-cert.pem': 'NEW ✓' });
    const first = await c.core.readNamespacedConfigMap({
      namespace: NS,
      name: 'istio-ca-root-cert',
    });
    c.sim.putConfigMap(NS, 'istio-ca-root-cert', { 'root-cert.pem': 'NEW' });
    const second = await c.core.readNamespacedConfigMap({
      namespace: NS,
      name: 'istio-ca-root-cert',
    });
    expect(second.data).toEqual({ 'root-cert.pem': 'NEW' });
    expect(second.metadata?.uid).toBe(first.metadata?.uid);
    expect(Number(second.metadata?.resourceVersion)).toBeGreaterThan(
      Number(first.metadata?.resourceVersion),
    );
    const secret = await c.core.readNamespacedSecret({
      namespace: 'istio-system',
      name: 'cacerts',
    });
    expect(Buffer.from(secret.data!['root-cert.pem']!, 'base64').toString('utf8')).toBe('NEW ✓');
    await apiError(
      c.core.readNamespacedSecret({ namespace: 'istio-system', name: 'missing' }),
      404,
    );
  });

  it('answers discovery and unknown paths like an API server, and logs requests', async () => {
    c = await startWithClients();
    expect((await c.kc.makeApiClient(VersionApi).getCode()).major).toBe('1');
    const missing = await fetch(`${c.sim.url}/apis/nope.example.com/v1/things`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    const ns = await c.core.readNamespace({ name: 'anything' });
    expect(ns.status?.phase).toBe('Active');
    await apiError(c.core.readNamespacedPod({ namespace: NS, name: 'ghost' }), 404);
    expect(c.sim.requests().at(-1)).toMatchObject({
      method: 'GET',
      path: `/api/v1/namespaces/${NS}/pods/ghost`,
      resource: 'pods',
      namespace: NS,
      name: 'ghost',
      watch: false,
      status: 404,
      user: 'sim-admin',
    });
    c.sim.resetRequests();
    expect(c.sim.requests()).toEqual([]);
  });

  it('names the kubeconfig user whose token a request carried, and no one for other tokens', async () => {
    c = await startWithClients();
    const worker = new KubeConfig();
    worker.loadFromString(c.sim.kubeconfigYaml('sim-worker'));
    await worker.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: NS });
    await c.core.listNamespacedPod({ namespace: NS });
    await fetch(`${c.sim.url}/api/v1/namespaces/${NS}/pods`, {
      headers: { authorization: 'Bearer some-service-account-token' },
    });
    expect(c.sim.requests().map((entry) => entry.user)).toEqual([
      'sim-worker',
      'sim-admin',
      undefined,
    ]);
  });

  it('builds the demo mesh, syncs its ConfigMaps after the delay, and closes with watches open', async () => {
    c = await startWithClients();
    const directive = demoMesh(c.sim, { configMapSyncDelayMs: 100 });
    expect(directive.metadata).toMatchObject({
      name: 'mesh-certs',
      namespace: 'istio-system',
      generation: 1,
    });
    expect(directive.spec.podsToBounce.map((s) => s.labels.app)).toEqual([
      'istiod',
      'istio-ingressgateway',
      'reviews',
      'ratings',
    ]);
    expect(c.sim.listPods('istio-system')).toHaveLength(3);
    expect(c.sim.listPods(NS, { app: 'ratings' }).map((p) => p.metadata.name)).toEqual([
      'ratings-0',
      'ratings-1',
    ]);

    const secret = await c.core.readNamespacedSecret({
      namespace: 'istio-system',
      name: 'cacerts',
    });
    const newRoot = Buffer.from(secret.data!['root-cert.pem']!, 'base64').toString('utf8');
    const rootIn = async () =>
      (await c.core.readNamespacedConfigMap({ namespace: NS, name: 'istio-ca-root-cert' })).data?.[
        'root-cert.pem'
      ];
    expect(newRoot).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(await rootIn()).not.toBe(newRoot);
    const watch = await recordWatch(c.kc, `/api/v1/namespaces/${NS}/configmaps`);
    await waitFor(() => watch.events.some((e) => e.type === 'MODIFIED'));
    expect(await rootIn()).toBe(newRoot);

    await c.sim.close();
    expect(await watch.done).toBeNull();
    await c.sim.close();
  });
});
