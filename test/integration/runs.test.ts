import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeRole } from '../../src/runtime/serve.js';
import { createLogger } from '../../src/logger.js';
import { latestRun } from '../../src/queue/runs.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

function addApp(h: Harness, namespace: string, app: string, readinessDelayMs: number | null) {
  h.sim.addWorkload({
    namespace,
    name: app,
    kind: 'ReplicaSet',
    labels: { app },
    replicas: 2,
    readinessDelayMs,
  });
}

describe('runs per issuance', () => {
  let h: Harness;
  beforeAll(async () => {
    // An issuedAt ahead of the clock counts as the moment it was received (issued-at.test.ts):
    // every pod started before the event is bounced.
    h = await startHarness('runs');
  });
  afterAll(async () => h.close());

  const ref = (namespace: string, issuedAt?: string) => ({
    directive: { namespace, name: 'certs' },
    ...(issuedAt ? { issuedAt } : {}),
  });
  const deletedIn = (namespace: string) =>
    h.sim.deletedPods().filter((pod) => pod.namespace === namespace).length;

  it('a later issuedAt starts a second run of the same generation; equal or older ones are duplicates', async () => {
    addApp(h, 'rounds', 'app', 50);
    h.sim.applyDirective(
      directive('rounds', 'certs', [{ namespace: 'rounds', labels: { app: 'app' } }]),
    );
    const first = await h.post(ref('rounds', new Date().toISOString()));
    expect(first.status).toBe(202);
    expect(first.body.duplicate).toBe(false);
    const done = await waitForState(h, 'rounds', 'certs', 'FINISHED');
    expect(done.status.issuedAt).toBe(first.body.issuedAt);
    expect(deletedIn('rounds')).toBe(2);

    // After the first round's replacements started: the second round bounces them.
    const secondAt = new Date().toISOString();
    const second = await h.post(ref('rounds', secondAt));
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ generation: 1, issuedAt: secondAt, duplicate: false });
    expect(second.body.jobIds[0]).toBe(`${first.body.uid}.g1.r${Date.parse(secondAt)}.s0`);
    await eventually('the second round to bounce the replacements', () =>
      deletedIn('rounds') === 4 ? true : undefined,
    );
    const again = await waitForState(h, 'rounds', 'certs', 'FINISHED');
    expect(again.status.issuedAt).toBe(secondAt);

    // FINISHED is written by the job itself, just before BullMQ marks it completed.
    const counts = await eventually('the second run to leave the active set', async () => {
      const now = await h.serve.queue.getJobCounts();
      return now.active === 0 ? now : undefined;
    });
    for (const body of [
      ref('rounds', secondAt),
      ref('rounds', first.body.issuedAt),
      ref('rounds'),
    ]) {
      const dup = await h.post(body);
      expect(dup.status).toBe(202);
      expect(dup.body).toMatchObject({ duplicate: true, jobIds: second.body.jobIds });
    }
    // An object shape for a generation that has a run starts nothing, whatever its time.
    const watch = await h.post({ type: 'MODIFIED', object: h.sim.getDirective('rounds', 'certs') });
    expect(watch.body.duplicate).toBe(true);
    expect(await h.serve.queue.getJobCounts()).toEqual(counts);
    expect(deletedIn('rounds')).toBe(4);
    const run = await latestRun(h.serve.redis, h.prefix, first.body.uid);
    expect(run).toMatchObject({ generation: 1, runKey: String(Date.parse(secondAt)) });
  });

  it('a later issuedAt supersedes an unfinished run: its jobs end without bouncing', async () => {
    // Replacements never become Ready: selector 0 of the first run waits at waitForReplicas.
    addApp(h, 'stuck', 'slow', null);
    addApp(h, 'stuck', 'next', 50);
    h.sim.applyDirective(
      directive('stuck', 'certs', [
        // All at once: the first run must have bounced both before it is superseded.
        { namespace: 'stuck', labels: { app: 'slow' }, waitForReplicas: 2, maxUnavailable: '100%' },
        { namespace: 'stuck', labels: { app: 'next' }, maxUnavailable: '100%' },
      ]),
    );
    const at = Date.now() + 60_000;
    const first = await h.post(ref('stuck', new Date(at).toISOString()));
    await eventually('selector 0 to bounce and wait', () =>
      deletedIn('stuck') === 2 ? true : undefined,
    );
    // The replacements become Ready; the second round then bounces them in its own run.
    h.sim.setReadinessDelay('stuck', 'slow', 50);
    const second = await h.post(ref('stuck', new Date(at + 1000).toISOString()));
    expect(second.body.duplicate).toBe(false);
    // Read once completed: a job read a moment before it completes has no return value.
    await eventually('the first run to end as superseded', async () => {
      const ids: string[] = first.body.jobIds;
      const states = await Promise.all(ids.map((id) => h.serve.queue.getJobState(id)));
      if (!states.every((state) => state === 'completed')) return undefined;
      return Promise.all(ids.map((id) => h.serve.queue.getJob(id)));
    }).then((jobs) => {
      for (const job of jobs) expect(job?.returnvalue).toEqual({ outcome: 'superseded' });
    });
    const finished = await waitForState(h, 'stuck', 'certs', 'FINISHED');
    expect(finished.status.issuedAt).toBe(second.body.issuedAt);
    // Round 1 bounced the 2 "slow" pods; round 2 the 2 replacements and the 2 "next" pods.
    expect(deletedIn('stuck')).toBe(6);
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
  });

  it('the Events pod-bouncer recorded, posted back by an exporter, change nothing', async () => {
    const recorded = h.sim
      .events()
      .filter((event: any) => event.involvedObject?.namespace === 'rounds') as any[];
    expect(recorded.length).toBeGreaterThan(0);
    const counts = await eventually('no job to be running', async () => {
      const now = await h.serve.queue.getJobCounts();
      return now.active === 0 ? now : undefined;
    });
    const writes = () => h.sim.requests().filter((r) => r.method !== 'GET').length;
    const before = writes();
    for (const event of recorded) {
      const answer = await h.post(event);
      expect(answer.status).toBe(202);
      expect(answer.body.ignored).toBe(true);
    }
    expect(await h.serve.queue.getJobCounts()).toEqual(counts);
    expect(writes()).toBe(before);
  });

  it('two api replicas given the same new issuance at once start one run', async () => {
    addApp(h, 'pair', 'app', 50);
    h.sim.applyDirective(
      directive('pair', 'certs', [{ namespace: 'pair', labels: { app: 'app' } }]),
    );
    const other: ServeRole = await startServe(h.config, createLogger('silent'), h.kube);
    try {
      const issuedAt = new Date(Date.now() + 60_000).toISOString();
      const post = (url: string) =>
        fetch(`${url}/v1/events`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${h.env.WEBHOOK_TOKENS}`,
          },
          body: JSON.stringify(ref('pair', issuedAt)),
        }).then(async (response) => (await response.json()) as any);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => post(i % 2 ? other.url : h.serve.url)),
      );
      expect(answers.filter((answer) => answer.duplicate === false)).toHaveLength(1);
      expect(new Set(answers.map((answer) => answer.jobIds.join()))).toHaveProperty('size', 1);
      await waitForState(h, 'pair', 'certs', 'FINISHED');
      expect(deletedIn('pair')).toBe(2);
    } finally {
      await other.close();
    }
  });
});
