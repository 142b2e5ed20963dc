import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { addIstiod, keysUnder, queueSettled } from '../support/routers.js';

/** The event context Argo Events puts around every event (a CloudEvents context). */
function context(source: string, type: string) {
  return {
    id: '6b3d7e3c-3f8a-4e0e-9d3c-5d1c2b9f1a11',
    source,
    specversion: '1.0',
    type,
    datacontenttype: 'application/json',
    subject: 'cert-issued',
    time: new Date().toISOString(),
  };
}

describe('Argo Events envelopes on POST /v1/events', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('argo');
    addIstiod(h);
  });
  afterAll(async () => h.close());

  it('a webhook event source: data.body (the native body) is unwrapped', async () => {
    h.sim.applyDirective(
      directive('istio-system', 'via-webhook', [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 2 },
      ]),
    );
    const issuedAt = new Date(Date.now() - 120_000).toISOString();
    const answer = await h.post({
      context: context('cert-webhook', 'webhook'),
      data: {
        header: {
          'Content-Type': ['application/json'],
          'User-Agent': ['cert-agent/2.6'],
        },
        body: { directive: { namespace: 'istio-system', name: 'via-webhook' }, issuedAt },
      },
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ directive: 'istio-system/via-webhook', duplicate: false });
    const job = await h.serve.queue.getJob(answer.body.jobIds[0]);
    expect(job?.data.issuedAt).toBe(issuedAt);
    await waitForState(h, 'istio-system', 'via-webhook', 'FINISHED');
  });

  it('a resource event source: data.body is the directive, read as a reference; DELETE is ignored', async () => {
    h.sim.applyDirective(
      directive('istio-system', 'via-resource', [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 2 },
      ]),
    );
    const object = JSON.parse(JSON.stringify(h.sim.getDirective('istio-system', 'via-resource')));
    const envelope = (type: string) => ({
      context: context('pbd-resource', 'resource'),
      data: {
        type,
        body: object,
        group: 'internal.gloo.solo.io',
        version: 'v2',
        resource: 'podbouncedirectives',
      },
    });
    const answer = await h.post(envelope('UPDATE'));
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({
      directive: 'istio-system/via-resource',
      uid: object.metadata.uid,
      generation: object.metadata.generation,
      duplicate: false,
    });
    await waitForState(h, 'istio-system', 'via-resource', 'FINISHED');

    await queueSettled(h);
    const before = await keysUnder(h.prefix);
    const deleted = await h.post(envelope('DELETE'));
    expect(deleted.status).toBe(202);
    expect(deleted.body).toMatchObject({ ignored: true });
    expect(await keysUnder(h.prefix)).toEqual(before);
  });

  it('an envelope whose body fits no shape is a 400 naming the field', async () => {
    const answer = await h.post({
      context: context('cert-webhook', 'webhook'),
      data: { header: {}, body: { directive: { namespace: 'Bad_NS', name: 'x' } } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/directive\.namespace/);
  });
});
