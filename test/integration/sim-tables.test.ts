// What kubectl asks the simulator for, on the wire: server-side Tables (list, get, watch;
// includeObject) and watch lists (sendInitialEvents, the initial-events-end bookmark), answered as
// the API server answers them. test/e2e/kubectl.test.ts runs the real kubectl on top of these.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import type { Simulator } from '../../src/sim/index.js';
import { directiveBody, GROUP, PLURAL, VERSION, waitFor } from './sim-clients.js';

/** What kubectl 1.35 sends with `kubectl get`. */
const KUBECTL_TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const NS = 'mesh';
const DIRECTIVES = `/apis/${GROUP}/${VERSION}/namespaces/${NS}/${PLURAL}`;

describe('simulator: what kubectl reads', () => {
  let sim: Simulator;
  beforeEach(async () => {
    sim = await startSimulator();
  });
  afterEach(async () => {
    await sim.close();
  });

  async function get(path: string, accept = KUBECTL_TABLE): Promise<{ status: number; body: any }> {
    const response = await fetch(`${sim.url}${path}`, { headers: { accept } });
    return { status: response.status, body: await response.json() };
  }

  async function patchStatus(name: string, status: object): Promise<void> {
    const response = await fetch(`${sim.url}${DIRECTIVES}/${name}/status`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ status }),
    });
    expect(response.status).toBe(200);
  }

  /** A watch stream's events as they arrive, parsed line by line. */
  async function watch(path: string, accept = 'application/json') {
    const controller = new AbortController();
    const response = await fetch(`${sim.url}${path}`, {
      headers: { accept },
      signal: controller.signal,
    });
    const events: any[] = [];
    if (response.status === 200 && response.body) {
      const stream = response.body;
      void (async () => {
        const decoder = new TextDecoder();
        let buffered = '';
        for await (const chunk of stream) {
          buffered += decoder.decode(chunk, { stream: true });
          for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
            events.push(JSON.parse(buffered.slice(0, end)));
            buffered = buffered.slice(end + 1);
          }
        }
      })().catch(() => undefined);
    }
    return { status: response.status, events, stop: () => controller.abort() };
  }

  const finished = {
    observedGeneration: 1,
    state: 'FINISHED',
    podsBounced: [{ bouncedPods: ['istiod-a', 'istiod-b'] }, { bouncedPods: ['gateway-a'] }],
    conditions: [
      {
        type: 'Reconciling',
        status: 'False',
        reason: 'Finished',
        message: '',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      {
        type: 'Ready',
        status: 'True',
        reason: 'Finished',
        message: 'all 2 selector(s) bounced',
        observedGeneration: 1,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  };

  it("prints a directive list with the CRD's columns: the first result of each JSONPath, the age as HumanDuration", async () => {
    sim.applyDirective(directiveBody('certs', [{ namespace: NS, labels: {} }], NS));
    sim.applyDirective(directiveBody('fresh', [{ namespace: NS, labels: {} }], NS));
    await patchStatus('certs', finished);

    const { status, body } = await get(DIRECTIVES);
    expect(status).toBe(200);
    expect(body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(body.columnDefinitions.map((c: any) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['State', 'string', 0],
      ['Ready', 'string', 0],
      ['Message', 'string', 0],
      ['Age', 'date', 0],
      ['Bounced', 'string', 1],
    ]);
    expect(body.columnDefinitions[0].format).toBe('name');
    expect(body.columnDefinitions[2].description).toBe("The Ready condition's status");
    expect(body.columnDefinitions[1].description).toBe(
      'Custom resource definition column (in JSONPath format): .status.state',
    );
    const [certs, fresh] = body.rows;
    expect(certs.cells).toEqual([
      'certs',
      'FINISHED',
      'True',
      'all 2 selector(s) bounced',
      expect.stringMatching(/^\d+s$/),
      'istiod-a',
    ]);
    // No status yet: the columns have nothing to show (kubectl prints them empty).
    expect(fresh.cells).toEqual(['fresh', null, null, null, expect.stringMatching(/^\d+s$/), null]);
    expect(certs.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: sim.getDirective(NS, 'certs')!.metadata,
    });
  });

  it('carries the object, its metadata or nothing as includeObject says, and refuses any other value', async () => {
    sim.applyDirective(directiveBody('certs', [{ namespace: NS, labels: {} }], NS));
    const path = `${DIRECTIVES}/certs`;
    const whole = await get(`${path}?includeObject=Object`);
    expect(whole.body.rows).toHaveLength(1);
    expect(whole.body.rows[0].object).toEqual(sim.getDirective(NS, 'certs'));
    expect((await get(`${path}?includeObject=None`)).body.rows[0].object).toBeNull();
    const bad = await get(`${path}?includeObject=Everything`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      `Unable to convert to Table as requested: includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', or 'None'`,
    );

    // The first media range served wins; plain JSON, or none at all, is the object itself.
    const beta = await get(path, 'application/json;as=Table;v=v1beta1;g=meta.k8s.io');
    expect(beta.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' });
    expect(beta.body.rows[0].object.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect((await get(path, 'application/json')).body.kind).toBe('PodBounceDirective');
    expect((await get(path, '')).body.kind).toBe('PodBounceDirective');
    // A Status is never a Table.
    const missing = await get(`${DIRECTIVES}/nowhere`);
    expect(missing).toMatchObject({ status: 404, body: { kind: 'Status', reason: 'NotFound' } });
  });

  it("prints pods as kubectl's printPod does, IP and node at priority 1, Terminating once deleted", async () => {
    sim.addWorkload({
      namespace: NS,
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 1,
      terminationGraceMs: 60_000,
      readinessDelayMs: null,
    });
    const [ready] = sim.listPods(NS, { app: 'istiod' });
    const name = ready!.metadata.name;
    const { body } = await get(`/api/v1/namespaces/${NS}/pods`);
    expect(body.columnDefinitions.map((c: any) => `${c.name}:${c.priority}`)).toEqual([
      'Name:0',
      'Ready:0',
      'Status:0',
      'Restarts:0',
      'Age:0',
      'IP:1',
      'Node:1',
      'Nominated Node:1',
      'Readiness Gates:1',
    ]);
    expect(body.rows.map((row: any) => row.cells)).toEqual([
      [
        name,
        '1/1',
        'Running',
        '0',
        expect.stringMatching(/^\d+s$/),
        ready!.status.podIP,
        ready!.spec.nodeName,
        '<none>',
        '<none>',
      ],
    ]);

    // The deleted pod is Terminating for its grace period; its replacement is never Ready.
    const deleted = await fetch(`${sim.url}/api/v1/namespaces/${NS}/pods/${name}`, {
      method: 'DELETE',
    });
    expect(deleted.status).toBe(200);
    await waitFor(() => sim.listPods(NS, { app: 'istiod' }).length === 2);
    const after = await get(`/api/v1/namespaces/${NS}/pods`);
    const status = new Map(
      after.body.rows.map((row: any) => [row.cells[0], row.cells.slice(1, 4)]),
    );
    const replacement = sim.listPods(NS, { app: 'istiod' }).find((p) => p.metadata.name !== name);
    expect(status.get(name)).toEqual(['0/1', 'Terminating', '0']);
    expect(status.get(replacement!.metadata.name)).toEqual(['0/1', 'Running', '0']);
    const one = await get(`/api/v1/namespaces/${NS}/pods/${name}`);
    expect(one.body.rows.map((row: any) => row.cells[2])).toEqual(['Terminating']);
  });

  it('sends a Table per watch event, the column definitions with the first only', async () => {
    sim.applyDirective(directiveBody('certs', [{ namespace: NS, labels: {} }], NS));
    sim.applyDirective(directiveBody('other', [{ namespace: NS, labels: {} }], NS));
    const stream = await watch(
      `${DIRECTIVES}?watch=true&fieldSelector=metadata.name%3Dcerts`,
      KUBECTL_TABLE,
    );
    await waitFor(() => stream.events.length >= 1);
    await patchStatus('certs', { observedGeneration: 1, state: 'BOUNCING_PODS' });
    await patchStatus('other', { observedGeneration: 1, state: 'BOUNCING_PODS' });
    await patchStatus('certs', finished);
    await waitFor(() => stream.events.length >= 3);
    stream.stop();

    expect(stream.events.map((e) => [e.type, e.object.kind, e.object.rows[0].cells[1]])).toEqual([
      ['ADDED', 'Table', null],
      ['MODIFIED', 'Table', 'BOUNCING_PODS'],
      ['MODIFIED', 'Table', 'FINISHED'],
    ]);
    const [first, ...rest] = stream.events;
    expect(first.object.columnDefinitions.map((c: any) => c.name)).toContain('Message');
    for (const event of rest) expect(event.object.columnDefinitions).toBeNull();
    expect(rest[1].object.rows).toHaveLength(1);
    expect(rest[1].object.metadata.resourceVersion).toBe(
      sim.getDirective(NS, 'certs')!.metadata.resourceVersion,
    );
  });

  it('answers a watch list with the current objects, the initial-events-end bookmark, then changes', async () => {
    sim.applyDirective(directiveBody('certs', [{ namespace: NS, labels: {} }], NS));
    sim.applyDirective(directiveBody('other', [{ namespace: NS, labels: {} }], NS));
    const list = await get(DIRECTIVES, 'application/json');
    const query =
      'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';
    const all = await watch(`${DIRECTIVES}?${query}`);
    const one = await watch(`${DIRECTIVES}?${query}&fieldSelector=metadata.name%3Dcerts`);
    await waitFor(() => all.events.length >= 3 && one.events.length >= 2);
    await patchStatus('certs', finished);
    await waitFor(() => all.events.length >= 4 && one.events.length >= 3);
    all.stop();
    one.stop();

    const seen = (events: any[]) => events.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`);
    expect(seen(all.events)).toEqual(['ADDED certs', 'ADDED other', 'BOOKMARK ', 'MODIFIED certs']);
    expect(seen(one.events)).toEqual(['ADDED certs', 'BOOKMARK ', 'MODIFIED certs']);
    expect(one.events[1].object).toEqual({
      kind: 'PodBounceDirective',
      apiVersion: `${GROUP}/${VERSION}`,
      metadata: {
        resourceVersion: list.body.metadata.resourceVersion,
        annotations: { 'k8s.io/initial-events-end': 'true' },
      },
    });
  });

  it('leaves the bookmark out without allowWatchBookmarks, and starts from now with sendInitialEvents=false', async () => {
    sim.applyDirective(directiveBody('certs', [{ namespace: NS, labels: {} }], NS));
    const match = 'watch=true&resourceVersionMatch=NotOlderThan';
    const noBookmarks = await watch(`${DIRECTIVES}?${match}&sendInitialEvents=true`);
    const fromNow = await watch(
      `${DIRECTIVES}?${match}&sendInitialEvents=false&allowWatchBookmarks=true`,
    );
    await waitFor(() => noBookmarks.events.length >= 1);
    await patchStatus('certs', finished);
    await waitFor(() => noBookmarks.events.length >= 2 && fromNow.events.length >= 1);
    noBookmarks.stop();
    fromNow.stop();
    expect(noBookmarks.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    expect(fromNow.events.map((e) => e.type)).toEqual(['MODIFIED']);
  });

  it('holds watch-list options to the ListOptions validation of the API server', async () => {
    const refused = async (path: string) => {
      const answer = await get(path, 'application/json');
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({
        kind: 'Status',
        reason: 'Invalid',
        details: { group: 'meta.k8s.io', kind: 'ListOptions' },
      });
      return answer.body.message as string;
    };
    expect(await refused(`${DIRECTIVES}?watch=true&sendInitialEvents=true`)).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
    expect(await refused(`${DIRECTIVES}?watch=true&resourceVersionMatch=NotOlderThan`)).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
    expect(await refused(`${DIRECTIVES}?sendInitialEvents=true`)).toBe(
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    );
  });
});
