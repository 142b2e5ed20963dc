import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { cloudEventKey } from '../../src/ingest/cloudevents.js';
import { latestRun } from '../../src/queue/runs.js';
import { addIstiod, keysUnder, postRaw, queueSettled } from '../support/routers.js';

const SECRET = 'hmac-secret-for-cloudevents';

/** What a cert issuer's Knative/Argo sink sends in binary mode (headers as Knative forwards them). */
function binaryHeaders(id: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'ce-specversion': '1.0',
    'ce-id': id,
    'ce-source': '//gloo-mesh.solo.io/mgmt-server/cert-agent',
    'ce-type': 'io.solo.gloo.mesh.cert.issued.v1',
    'ce-subject': 'gloo-mesh/istiod-istio-system-cluster-1',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    ...extra,
  };
}

describe('CloudEvents 1.0 on POST /v1/events', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('ce', { env: { WEBHOOK_HMAC_SECRET: SECRET } });
    addIstiod(h);
    h.sim.applyDirective(
      directive('istio-system', 'mesh-certs', [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 2 },
      ]),
    );
  });
  afterAll(async () => h.close());

  it('binary mode: data is a native reference and ce-time stands in for issuedAt', async () => {
    // One pod is younger than the event's time: it already carries the new certificate. The time
    // is on the clock's second, later than the second the other pods started in.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const time = new Date();
    time.setMilliseconds(0);
    const young = h.sim.addPod({
      namespace: 'istio-system',
      name: 'istiod-young',
      labels: { app: 'istiod' },
      createdAt: new Date(time.getTime() + 1000),
    });
    const originals = h.sim
      .listPods('istio-system', { app: 'istiod' })
      .filter((pod) => pod.metadata.name !== 'istiod-young');
    const answer = await postRaw(
      h,
      JSON.stringify({ directive: { namespace: 'istio-system', name: 'mesh-certs' } }),
      binaryHeaders('b6f2c3f0-0001', { 'ce-time': time.toISOString() }),
    );
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({
      directive: 'istio-system/mesh-certs',
      generation: 1,
      selectors: 1,
      duplicate: false,
    });
    const job = await h.serve.queue.getJob(answer.body.jobIds[0]);
    expect(job?.data.issuedAt).toBe(time.toISOString());

    await waitForState(h, 'istio-system', 'mesh-certs', 'FINISHED');
    const deleted = new Set(h.sim.deletedPods().map((pod) => pod.uid));
    for (const pod of originals) expect(deleted.has(pod.metadata.uid)).toBe(true);
    expect(deleted.has(young.metadata.uid)).toBe(false);
  });

  it('structured mode: data is a PodBounceDirective (a reference); a redelivery never runs again, even after a spec change', async () => {
    h.sim.applyDirective(
      directive('istio-system', 'gateways', [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 0 },
      ]),
    );
    const object = h.sim.getDirective('istio-system', 'gateways');
    const cloudEvent = {
      specversion: '1.0',
      id: 'a3c1c7e2-5b44-4c1e-9d0e-000000000002',
      source: '//gloo-mesh.solo.io/mgmt-server/cert-agent',
      type: 'io.k8s.podbouncedirective.modified',
      time: new Date().toISOString(),
      datacontenttype: 'application/json',
      subject: 'istio-system/gateways',
      // Routers forward the object as read from the cluster: status, managedFields and all.
      data: object,
    };
    const raw = JSON.stringify(cloudEvent);
    const signature = `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
    const send = () =>
      fetch(`${h.serve.url}/v1/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/cloudevents+json; charset=utf-8',
          'x-signature-256': signature,
        },
        body: raw,
      }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as any,
      }));

    const first = await send();
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ directive: 'istio-system/gateways', generation: 1 });
    expect(first.body.duplicate).toBe(false);
    await waitForState(h, 'istio-system', 'gateways', 'FINISHED');
    const firstJob = await h.serve.queue.getJob(first.body.jobIds[0]);
    await eventually('the first run to complete', async () =>
      (await firstJob!.getState()) === 'completed' ? true : undefined,
    );

    // The spec changes (generation 2); the sender then redelivers the same CloudEvent.
    h.sim.applyDirective(
      directive('istio-system', 'gateways', [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 1 },
      ]),
    );
    expect(h.sim.getDirective('istio-system', 'gateways')?.metadata.generation).toBe(2);
    const counts = await h.serve.queue.getJobCounts();
    const again = await send();
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ ...first.body, duplicate: true });
    expect(await h.serve.queue.getJobCounts()).toEqual(counts);
    expect(
      await h.serve.queue.getJob(first.body.jobIds[0].replace('.g1.', '.g2.')),
    ).toBeUndefined();
  });

  it('a source and id already used by another sender or for another directive is a 409, never its answer', async () => {
    for (const name of ['ce-first', 'ce-other']) {
      h.sim.applyDirective(
        directive('istio-system', name, [
          { namespace: 'istio-system', labels: { app: 'no-such-app' }, waitForReplicas: 0 },
        ]),
      );
    }
    const id = 'shared-id-0001';
    const data = (name: string, issuedAt = new Date().toISOString()) =>
      JSON.stringify({ directive: { namespace: 'istio-system', name }, issuedAt });
    // Sender A (the HMAC credential) uses the id first.
    const signed = (body: string) =>
      postRaw(h, body, {
        ...binaryHeaders(id),
        'x-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
        authorization: '',
      });
    const first = await signed(data('ce-first'));
    expect(first.status).toBe(202);
    expect(first.body.duplicate).toBe(false);

    // The issuer (the bearer token) sends its own event with the same pair: for another
    // directive, then for the same one.
    for (const name of ['ce-other', 'ce-first']) {
      const answer = await postRaw(h, data(name), binaryHeaders(id));
      expect(answer.status, name).toBe(409);
      expect(answer.body.error).toBe('cloudevent_id_conflict');
      expect(answer.body.message).toEqual(expect.any(String));
      expect(JSON.stringify(answer.body)).not.toContain(first.body.uid);
    }
    // Sender A for another directive: a conflict too.
    expect((await signed(data('ce-other'))).status).toBe(409);
    // Nothing started for the other directive.
    const other = h.sim.getDirective('istio-system', 'ce-other')!;
    expect(await latestRun(h.serve.redis, h.prefix, other.metadata.uid)).toBeUndefined();

    // Sender A again for its directive, whatever the data: a duplicate, with its own answer.
    const again = await signed(data('ce-first', new Date(Date.now() + 1000).toISOString()));
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ ...first.body, duplicate: true });
  });

  it('an id remembered before records named their sender is still a duplicate for its directive', async () => {
    const id = 'remembered-before-0001';
    const source = binaryHeaders(id)['ce-source']!;
    const earlier = {
      directive: 'istio-system/mesh-certs',
      uid: 'uid-of-then',
      generation: 1,
      selectors: 1,
      jobIds: ['uid-of-then.g1.r0.s0'],
      duplicate: false,
    };
    await h.serve.redis.set(cloudEventKey(h.prefix, { source, id }), JSON.stringify(earlier));
    const data = (name: string) =>
      JSON.stringify({ directive: { namespace: 'istio-system', name } });
    const again = await postRaw(h, data('mesh-certs'), binaryHeaders(id));
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ ...earlier, duplicate: true });
    expect((await postRaw(h, data('gateways'), binaryHeaders(id))).status).toBe(409);
  });

  it('remembers a source and id for 24 hours, not for RETENTION_DAYS', async () => {
    const id = 'kept-a-day-0001';
    const answer = await postRaw(
      h,
      JSON.stringify({ directive: { namespace: 'istio-system', name: 'mesh-certs' } }),
      binaryHeaders(id),
    );
    expect(answer.status).toBe(202);
    const source = binaryHeaders(id)['ce-source']!;
    const ttl = await h.serve.redis.ttl(cloudEventKey(h.prefix, { source, id }));
    expect(ttl).toBeGreaterThan(24 * 3600 - 60);
    expect(ttl).toBeLessThanOrEqual(24 * 3600);
  });

  it('answers 400 naming the attribute of an invalid CloudEvent', async () => {
    const data = JSON.stringify({ directive: { namespace: 'istio-system', name: 'mesh-certs' } });
    const noType = binaryHeaders('bad-1');
    delete noType['ce-type'];
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [noType, data, /ce-type/],
      [binaryHeaders('bad-2', { 'ce-time': 'yesterday' }), data, /ce-time/],
      [binaryHeaders('bad-3', { 'ce-specversion': '0.3' }), data, /ce-specversion/],
      [
        { 'content-type': 'application/cloudevents+json' },
        JSON.stringify({ specversion: '1.0', id: 'x', type: 't', data: {} }),
        /source/,
      ],
      [
        { 'content-type': 'application/cloudevents+json' },
        JSON.stringify({ specversion: '1.0', source: '/s', type: 't', data: {} }),
        /\bid\b/,
      ],
      [
        { 'content-type': 'application/cloudevents+json' },
        JSON.stringify({ specversion: '1.0', id: 'x', source: '/s', type: 't', data: { foo: 1 } }),
        /^data\.body/,
      ],
    ];
    for (const [headers, body, field] of cases) {
      const answer = await postRaw(h, body, headers);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error).toBe('bad_request');
      expect(answer.body.message).toMatch(field);
    }
    const batch = await postRaw(h, '[]', { 'content-type': 'application/cloudevents-batch+json' });
    expect(batch.status).toBe(415);
  });

  it('a CloudEvent whose data is about another kind is acknowledged and writes nothing to Redis', async () => {
    await queueSettled(h);
    const before = await keysUnder(h.prefix);
    const answer = await postRaw(
      h,
      JSON.stringify({
        involvedObject: { kind: 'Pod', namespace: 'istio-system', name: 'istiod-abc' },
        reason: 'Killing',
        message: 'Stopping container discovery',
        firstTimestamp: '2026-11-29T12:00:00Z',
        type: 'Normal',
      }),
      binaryHeaders('ignored-1'),
    );
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ ignored: true });
    expect(await keysUnder(h.prefix)).toEqual(before);
  });
});
