import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';

const NS = 'mesh';

/** GETs of one directive the api sent to the API server (watches and lists apart). */
function directiveGets(h: Harness, name: string): number {
  return h.sim
    .requests()
    .filter(
      (r) =>
        r.method === 'GET' &&
        !r.watch &&
        r.resource === 'podbouncedirectives' &&
        r.name === name &&
        r.subresource === undefined,
    ).length;
}

/** A watch event as a router forwards it: the object with the uid and generation it saw. */
function watchEvent(h: Harness, name: string) {
  const object = h.sim.getDirective(NS, name)!;
  return { type: 'MODIFIED', object };
}

describe('ingest answers from the directive watch cache', () => {
  let h: Harness;
  beforeAll(async () => {
    // No worker: this is about what the api sends to the API server and to Redis.
    h = await startHarness('ingest-cache', { worker: false });
  });
  afterAll(async () => h.close());

  it('costs no API read for an event carrying a version the cache holds, and re-reads a plain reference', async () => {
    h.sim.applyDirective(
      directive(NS, 'warm', [{ namespace: NS, labels: { app: 'a' }, waitForReplicas: 0 }]),
    );
    const first = await h.post(watchEvent(h, 'warm'));
    expect(first.status).toBe(202);
    expect(first.body.duplicate).toBe(false);

    // The namespace's directive watch starts on first use; once synced, reads stop.
    await eventually('the directive watch cache to answer', async () => {
      const before = directiveGets(h, 'warm');
      const answer = await h.post(watchEvent(h, 'warm'));
      return answer.body.duplicate === true && directiveGets(h, 'warm') === before
        ? true
        : undefined;
    });

    const before = directiveGets(h, 'warm');
    const counts = await h.serve.queue.getJobCounts();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => h.post(watchEvent(h, 'warm'))),
    );
    expect(answers.every((a) => a.status === 202 && a.body.duplicate === true)).toBe(true);
    expect(answers.every((a) => a.body.generation === 1)).toBe(true);
    expect(directiveGets(h, 'warm')).toBe(before);
    expect(await h.serve.queue.getJobCounts()).toEqual(counts);

    // A reference without a version cannot be checked against the cache: one GET each.
    await h.post({ directive: { namespace: NS, name: 'warm' } });
    await h.post({ directive: { namespace: NS, name: 'warm' } });
    expect(directiveGets(h, 'warm')).toBe(before + 2);
    const metrics = await (await fetch(`${h.serve.url}/metrics`)).text();
    expect(metrics).toMatch(/pod_bouncer_ingest_directive_reads_total\{source="cache"\} [1-9]/);
  });

  it('reads the API when the cache lags behind the version the event carries', async () => {
    h.sim.applyDirective(
      directive(NS, 'lagging', [{ namespace: NS, labels: { app: 'a' }, waitForReplicas: 0 }]),
    );
    const first = await h.post(watchEvent(h, 'lagging'));
    expect(first.body).toMatchObject({ generation: 1, duplicate: false });
    await eventually('the cache to hold generation 1', async () => {
      const before = directiveGets(h, 'lagging');
      await h.post(watchEvent(h, 'lagging'));
      return directiveGets(h, 'lagging') === before ? true : undefined;
    });

    // The spec changes while the API server's watches lag: the cache still holds generation 1.
    const release = h.sim.holdWatchEvents();
    try {
      h.sim.applyDirective(
        directive(NS, 'lagging', [{ namespace: NS, labels: { app: 'b' }, waitForReplicas: 0 }]),
      );
      const changed = watchEvent(h, 'lagging');
      expect(changed.object.metadata.generation).toBe(2);
      const before = directiveGets(h, 'lagging');
      const answer = await h.post(changed);
      // Not "duplicate of generation 1": the new generation is read from the API and accepted.
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ generation: 2, duplicate: false });
      expect(directiveGets(h, 'lagging')).toBe(before + 1);
    } finally {
      release();
    }
  });
});
