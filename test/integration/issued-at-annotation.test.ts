// The `pod-bouncer.io/issued-at` annotation names the issuance wherever an event carries none
// (DESIGN §2 *Runs*): the object shapes, and a native reference without issuedAt. A later value
// starts the next round of a rotation without a spec change; an invalid one is ignored with a
// Warning Event `InvalidIssuedAt` and starts nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUED_AT_ANNOTATION } from '../../src/directive/types.js';
import {
  ALL_AT_ONCE,
  directive,
  eventually,
  startHarness,
  TOKEN,
  type Harness,
} from '../support/harness.js';
import { addApps } from '../support/workloads.js';

const NS = 'annotated';

describe('the issued-at annotation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('issued-annotation', { env: { ...ALL_AT_ONCE } });
  });
  afterAll(async () => h.close());

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** An instant after every pod that exists now was created. */
  const afterNow = async (): Promise<string> => {
    await sleep(5);
    const at = new Date().toISOString();
    await sleep(5);
    return at;
  };
  const annotate = (name: string, app: string, value: string) =>
    h.sim.applyDirective({
      ...directive(NS, name, [{ namespace: NS, labels: { app } }]),
      metadata: { namespace: NS, name, annotations: { [ISSUED_AT_ANNOTATION]: value } },
    });
  const watchEvent = (name: string) => ({ type: 'MODIFIED', object: h.sim.getDirective(NS, name) });
  const finishedAt = (name: string, issuedAt: string) =>
    eventually(`${NS}/${name} FINISHED for ${issuedAt}`, () => {
      const status = h.sim.getDirective(NS, name)?.status as any;
      return status?.state === 'FINISHED' && status.issuedAt === issuedAt ? status : undefined;
    });
  const warnings = (name: string) =>
    h.sim
      .events()
      .filter(
        (event: any) => event.reason === 'InvalidIssuedAt' && event.involvedObject?.name === name,
      );

  it('names the run of a watch event, and a later value starts round two without a spec edit', async () => {
    addApps(h, NS, ['web'], { replicas: 2 });
    const first = await afterNow();
    const created = annotate('rounds', 'web', first);

    const one = await h.post(watchEvent('rounds'));
    expect(one.status).toBe(202);
    expect(one.body).toMatchObject({ duplicate: false, issuedAt: first });
    await finishedAt('rounds', first);
    expect((await h.post(watchEvent('rounds'))).body).toMatchObject({ duplicate: true });
    const roundOne = h.sim.deletedPods().map((pod) => pod.name);
    expect(roundOne).toHaveLength(2);

    const second = await afterNow();
    const annotated = annotate('rounds', 'web', second);
    expect(annotated.metadata.generation).toBe(created.metadata.generation);
    // A Kubernetes Event about the directive: an object shape, its own moment names no issuance.
    const two = await h.post({
      kind: 'Event',
      involvedObject: { kind: 'PodBounceDirective', namespace: NS, name: 'rounds' },
      reason: 'Rotated',
      eventTime: new Date().toISOString(),
    });
    expect(two.status).toBe(202);
    expect(two.body).toMatchObject({ duplicate: false, issuedAt: second });
    await finishedAt('rounds', second);
    const deleted = h.sim.deletedPods().map((pod) => pod.name);
    expect(deleted).toHaveLength(4);
    expect(deleted.slice(2)).not.toEqual(expect.arrayContaining(roundOne));
    expect([...h.sim.deletionsByUid().values()].every((count) => count === 1)).toBe(true);
  });

  it('is the issuedAt of a native reference that carries none, in the answer and the status', async () => {
    addApps(h, NS, ['api'], { replicas: 1 });
    const at = await afterNow();
    annotate('native', 'api', at);
    const answer = await h.post({ directive: { namespace: NS, name: 'native' } });
    expect(answer.status).toBe(202);
    expect(answer.body.issuedAt).toBe(at);
    await finishedAt('native', at);
  });

  it('is ignored with an InvalidIssuedAt Warning when it is no instant or too far ahead', async () => {
    addApps(h, NS, ['db'], { replicas: 1 });
    const at = await afterNow();
    annotate('invalid', 'db', at);
    expect((await h.post(watchEvent('invalid'))).body).toMatchObject({ duplicate: false });
    await finishedAt('invalid', at);
    const bounced = h.sim.deletedPods().length;

    for (const value of ['2026-02-31T00:00:00Z', new Date(Date.now() + 3_600_000).toISOString()]) {
      annotate('invalid', 'db', value);
      const answer = await h.post(watchEvent('invalid'));
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ duplicate: true, issuedAt: at });
    }
    await eventually('two InvalidIssuedAt Warnings', () =>
      warnings('invalid').length === 2 ? true : undefined,
    );
    expect(warnings('invalid')[0]).toMatchObject({ type: 'Warning' });
    expect(h.sim.deletedPods()).toHaveLength(bounced);
  });

  it("shows an invalid value in its Warning without the sender's control or bidi characters", async () => {
    addApps(h, NS, ['odd'], { replicas: 1 });
    // An 8-bit CSI (clears the screen), an 8-bit OSC (retitles the window), a bidi override.
    annotate('controls', 'odd', '2026-01-01\u009b2J\u009d0;owned\u009c\u202eZ00:00:00T');
    expect((await h.post(watchEvent('controls'))).status).toBe(202);
    const [warning] = await eventually('the InvalidIssuedAt Warning', () =>
      warnings('controls').length > 0 ? warnings('controls') : undefined,
    );
    const message = (warning as { message: string }).message;
    expect(message).toContain('"2026-01-01Z00:00:00T"');
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('is the issuance a dry run plans with: pods created at or after it are left alone', async () => {
    const before = new Date(Date.now() - 60_000).toISOString();
    addApps(h, NS, ['plan'], { replicas: 1 });
    annotate('planned', 'plan', before);
    const answer = await h.post(watchEvent('planned'));
    expect(answer.body.duplicate).toBe(false);
    await finishedAt('planned', before);
    const plan = await fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ directive: { namespace: NS, name: 'planned' } }),
    }).then((response) => response.json() as Promise<any>);
    expect(plan.issuedAt).toBe(new Date(before).toISOString());
    expect(plan.selectors[0].pods).toEqual([]);
    expect(plan.selectors[0].skipped[0]).toMatchObject({ reason: 'created at or after issuedAt' });
  });
});
