import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { registry } from '../../src/metrics/registry.js';
import { Notifier } from '../../src/notify/notifier.js';
import { createProducerConnection } from '../../src/queue/connection.js';
import { transitionFor } from '../../src/status/moments.js';
import { selectorRun, writtenTransition } from '../support/written.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

interface Received {
  status: number;
  contentType: string | undefined;
  body: any;
}

/**
 * A notification receiver on 127.0.0.1:0 that answers `answer(n)` to the n-th request (from 0),
 * with a `Location` of `redirectTo` when it is given.
 */
async function startReceiver(answer: (n: number) => number = () => 204, redirectTo?: string) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = answer(received.length);
      received.push({
        status,
        contentType: request.headers['content-type'],
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      response.writeHead(status, redirectTo ? { location: redirectTo } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** Distinct ids answered 2xx, in order. */
    delivered: () => received.filter((r) => r.status < 300).map((r) => r.body),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function istiod(h: Harness, name: string): void {
  h.sim.addWorkload({
    namespace: 'istio-system',
    name: 'istiod',
    kind: 'ReplicaSet',
    labels: { app: 'istiod' },
    replicas: 2,
    readinessDelayMs: 50,
  });
  h.sim.applyDirective(
    directive('istio-system', name, [
      { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 2 },
    ]),
  );
}

const TYPES = ['accepted', 'bouncing', 'finished'].map((t) => `io.pod-bouncer.directive.${t}`);

describe('notifications of status transitions', () => {
  let h: Harness | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterEach(async () => {
    await h?.close();
    await receiver?.close();
  });

  it('sends every transition of a run as a structured CloudEvent', async () => {
    receiver = await startReceiver();
    h = await startHarness('notify', { env: { NOTIFY_URL: receiver.url } });
    istiod(h, 'told');
    expect((await h.post({ directive: { namespace: 'istio-system', name: 'told' } })).status).toBe(
      202,
    );
    const done = await waitForState(h, 'istio-system', 'told', 'FINISHED');
    const events = await eventually('three notifications', () =>
      receiver!.delivered().length >= 3 ? receiver!.delivered() : undefined,
    );
    expect(events.map((e) => e.type)).toEqual(TYPES);
    expect(receiver.received[0]!.contentType).toMatch(/^application\/cloudevents\+json/);
    for (const event of events) {
      expect(event.specversion).toBe('1.0');
      expect(event.source).toBe('/pod-bouncer/istio-system/told');
      expect(event.data.directive).toEqual({
        namespace: 'istio-system',
        name: 'told',
        uid: done.metadata.uid,
        generation: done.metadata.generation,
      });
      expect(event.data.run).toMatchObject({ uid: done.metadata.uid, runKey: '0' });
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    expect(events[2].data.state).toBe('FINISHED');
    expect(events[2].data.status.podsBounced[0].bouncedPods).toHaveLength(2);
  });

  it('retries a receiver that answers 500 for a while; redeliveries carry the same id', async () => {
    // The first four requests fail: the first notification is retried until the fifth answer.
    receiver = await startReceiver((n) => (n < 4 ? 500 : 204));
    h = await startHarness('notify-retry', {
      env: { NOTIFY_URL: receiver.url, NOTIFY_FORMAT: 'cloudevents' },
    });
    istiod(h, 'retried');
    await h.post({ directive: { namespace: 'istio-system', name: 'retried' } });
    await waitForState(h, 'istio-system', 'retried', 'FINISHED');
    const events = await eventually(
      'every notification delivered',
      () => (receiver!.delivered().length >= 3 ? receiver!.delivered() : undefined),
      60_000,
    );
    expect([...events.map((e) => e.type)].sort()).toEqual([...TYPES].sort());
    const failed = receiver.received.filter((r) => r.status === 500);
    expect(failed.length).toBe(4);
    const deliveredIds = new Set(events.map((e) => e.id));
    for (const attempt of failed) expect(deliveredIds).toContain(attempt.body.id);
    // Each transition is delivered once, however many attempts it took.
    expect(deliveredIds.size).toBe(3);
  });

  it('follows no redirect: a 307 is a failed delivery, retried at the receiver itself', async () => {
    const elsewhere = await startReceiver();
    // The first two answers redirect elsewhere; then the receiver takes them.
    receiver = await startReceiver((n) => (n < 2 ? 307 : 204), `${elsewhere.url}/stolen`);
    try {
      h = await startHarness('notify-redirect', { env: { NOTIFY_URL: receiver.url } });
      istiod(h, 'redirected');
      await h.post({ directive: { namespace: 'istio-system', name: 'redirected' } });
      await waitForState(h, 'istio-system', 'redirected', 'FINISHED');
      const arrived = () => receiver!.delivered().length + elsewhere.received.length;
      await eventually('every notification to arrive somewhere', () =>
        arrived() >= 3 ? true : undefined,
      );
      expect(elsewhere.received.map((r) => r.body.type)).toEqual([]);
      expect(new Set(receiver.delivered().map((e) => e.type))).toEqual(new Set(TYPES));
      expect(receiver.received.filter((r) => r.status === 307)).toHaveLength(2);
    } finally {
      await elsewhere.close();
    }
  });

  it('posts Slack text with NOTIFY_FORMAT=slack', async () => {
    receiver = await startReceiver();
    h = await startHarness('notify-slack', {
      env: { K_SINK: receiver.url, NOTIFY_FORMAT: 'slack' },
    });
    istiod(h, 'chat');
    await h.post({ directive: { namespace: 'istio-system', name: 'chat' } });
    await waitForState(h, 'istio-system', 'chat', 'FINISHED');
    const texts = await eventually('three messages', () =>
      receiver!.delivered().length >= 3 ? receiver!.delivered() : undefined,
    );
    expect(Object.keys(texts[2])).toEqual(['text']);
    expect(texts[2].text).toMatch(/istio-system\/chat is FINISHED/);
  });

  it('finishes a run with an unreachable receiver, bouncing the same pods', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    h = await startHarness('notify-down', { env: { NOTIFY_URL: url } });
    istiod(h, 'unheard');
    await h.post({ directive: { namespace: 'istio-system', name: 'unheard' } });
    const done = await waitForState(h, 'istio-system', 'unheard', 'FINISHED');
    expect(done.status.podsBounced[0].bouncedPods).toHaveLength(2);
  });

  it('gives up an enqueue when the queue is out, without throwing or holding the writer', async () => {
    const failedBefore = await enqueueFailures();
    const redis = createProducerConnection('redis://127.0.0.1:1');
    redis.on('error', () => undefined);
    const notifier = new Notifier(
      { connection: redis, prefix: 'pbtest-notify-down' },
      createLogger('silent'),
    );
    const written = writtenTransition(
      transitionFor(selectorRun(0, 1, 1), { kind: 'finished' }),
      { observedGeneration: 1 },
      { namespace: 'ns', name: 'd', uid: 'u', generation: 1 },
    );
    // The hook returns at once: nothing to await, nothing thrown.
    expect(notifier.onTransition(written)).toBeUndefined();
    await notifier.close();
    redis.disconnect();
    expect(await enqueueFailures()).toBe(failedBefore + 1);
  });
});

async function enqueueFailures(): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find(
    (m) => m.name === 'pod_bouncer_notifications_total',
  );
  return metric?.values.find((v) => v.labels.outcome === 'enqueue_failed')?.value ?? 0;
}
