import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { addIstiod, keysUnder, queueSettled } from '../support/routers.js';

/** A directive as a watch or an exporter sees it: read back from the cluster, status and all. */
function clusterObject(h: Harness, name: string): any {
  return JSON.parse(JSON.stringify(h.sim.getDirective('istio-system', name)));
}

describe('Kubernetes-shaped events on POST /v1/events', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('k8s-routers');
    addIstiod(h);
  });
  afterAll(async () => h.close());

  function createDirective(name: string): any {
    h.sim.applyDirective(
      directive('istio-system', name, [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 2 },
      ]),
    );
    return clusterObject(h, name);
  }

  it('a MODIFIED watch event is a reference: the cluster, not the event, says what to bounce', async () => {
    const object = createDirective('watched');
    // A router forwarding a stale copy: the event's spec is not what gets bounced.
    object.spec.podsToBounce[0].labels = { app: 'not-there' };
    const before = h.sim.listPods('istio-system', { app: 'istiod' }).length;
    const answer = await h.post({ type: 'MODIFIED', object });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ directive: 'istio-system/watched', duplicate: false });
    await waitForState(h, 'istio-system', 'watched', 'FINISHED');
    expect(h.sim.deletedPods().length).toBe(before);
    expect(h.sim.getDirective('istio-system', 'watched')?.spec.podsToBounce[0]?.labels).toEqual({
      app: 'istiod',
    });
  });

  it('ADDED and the bare object of an accepted generation are duplicates; DELETED is acknowledged and ignored', async () => {
    const object = clusterObject(h, 'watched');
    const added = await h.post({ type: 'ADDED', object });
    expect(added.status).toBe(202);
    expect(added.body.duplicate).toBe(true);
    const bare = await h.post(object);
    expect(bare.status).toBe(202);
    expect(bare.body.duplicate).toBe(true);

    await queueSettled(h);
    const before = await keysUnder(h.prefix);
    const deleted = await h.post({ type: 'DELETED', object });
    expect(deleted.status).toBe(202);
    expect(deleted.body).toMatchObject({ ignored: true });
    expect(await keysUnder(h.prefix)).toEqual(before);
  });

  it('a core/v1 Event about a directive, as kubernetes-event-exporter posts it, runs the directive', async () => {
    const object = createDirective('exported');
    const firstTimestamp = new Date(Date.now() - 60_000);
    firstTimestamp.setMilliseconds(0);
    // kubernetes-event-exporter's webhook sink: the Event's fields at top level, plus the
    // involved object's labels and annotations it looks up.
    const event = {
      metadata: {
        name: 'exported.18a1b2c3d4e5f6a7',
        namespace: 'istio-system',
        uid: '5a3e1f7c-9b2d-4c8e-a6f1-2d3c4b5a6e7f',
        resourceVersion: '48213',
        creationTimestamp: firstTimestamp.toISOString(),
      },
      reason: 'CertificateIssued',
      message: 'Issued a new intermediate CA for istiod-istio-system-cluster-1',
      source: { component: 'cert-agent' },
      firstTimestamp: firstTimestamp.toISOString(),
      lastTimestamp: firstTimestamp.toISOString(),
      count: 1,
      type: 'Normal',
      eventTime: null,
      reportingComponent: 'cert-agent',
      reportingInstance: 'cert-agent-6d5f8c7b9-x2x9z',
      involvedObject: {
        kind: 'PodBounceDirective',
        namespace: 'istio-system',
        name: 'exported',
        uid: object.metadata.uid,
        apiVersion: 'internal.gloo.solo.io/v2',
        resourceVersion: object.metadata.resourceVersion,
        labels: {},
        annotations: {},
        deleted: false,
      },
    };
    const answer = await h.post(event);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ directive: 'istio-system/exported', duplicate: false });
    const job = await h.serve.queue.getJob(answer.body.jobIds[0]);
    expect(job?.data.issuedAt).toBe(firstTimestamp.toISOString());
    await waitForState(h, 'istio-system', 'exported', 'FINISHED');
  });

  it('a core/v1 Event about another kind is acknowledged with "ignored" and costs no Redis write but its rate count', async () => {
    await queueSettled(h);
    const before = await keysUnder(h.prefix);
    const answer = await h.post({
      metadata: { name: 'istiod-7d4b9c-x2kq9.18a1b2c3', namespace: 'istio-system' },
      reason: 'Killing',
      message: 'Stopping container discovery',
      source: { component: 'kubelet', host: 'worker-1' },
      firstTimestamp: '2026-11-29T12:00:00Z',
      lastTimestamp: '2026-11-29T12:00:00Z',
      count: 1,
      type: 'Normal',
      involvedObject: {
        kind: 'Pod',
        namespace: 'istio-system',
        name: 'istiod-7d4b9c-x2kq9',
        apiVersion: 'v1',
        fieldPath: 'spec.containers{discovery}',
      },
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ ignored: true, reason: expect.stringContaining('Pod') });
    expect(await keysUnder(h.prefix)).toEqual(before);
  });
});
