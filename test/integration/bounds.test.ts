import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startServe } from '../../src/runtime/serve.js';
import { startWork } from '../../src/runtime/work.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { rootCertSync } from '../support/root-cert.js';
import { callDirectiveRoutes } from '../support/routers.js';
import { addApps } from '../support/workloads.js';

const EMPTY = { active: 0, completed: 0, delayed: 0, failed: 0, waiting: 0 };

function addApp(h: Harness, namespace: string): void {
  addApps(h, namespace, ['app'], { replicas: 2, readinessDelayMs: 50 });
}

describe('what a credential may do', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('bounds', {
      env: { ALLOWED_NAMESPACES: 'allowed, mesh', MAX_SELECTORS: '64' },
    });
    addApp(h, 'allowed');
    addApp(h, 'other');
  });
  afterAll(async () => h.close());

  const nothingHappened = async (): Promise<void> => {
    expect(await h.serve.queue.getJobCounts()).toMatchObject(EMPTY);
    expect(h.sim.deletedPods()).toEqual([]);
  };

  it('refuses a referenced directive with a selector in another namespace (403)', async () => {
    h.sim.applyDirective(
      directive('allowed', 'mixed', [
        { namespace: 'allowed', labels: { app: 'app' } },
        { namespace: 'other', labels: { app: 'app' } },
      ]),
    );
    const answer = await h.post({ directive: { namespace: 'allowed', name: 'mixed' } });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: 'forbidden' });
    expect(answer.body.message).toMatch(/"other" is not in ALLOWED_NAMESPACES/);
    await nothingHappened();
    expect(h.sim.getDirective('allowed', 'mixed')?.status).toBeUndefined();
  });

  it('refuses a directive that lives outside the list, in every shape, before reading it (403)', async () => {
    // Its selectors are all allowed; the directive itself lives in another namespace.
    const sneaky = directive('other', 'sneaky-ref', [
      { namespace: 'allowed', labels: { app: 'app' } },
    ]);
    h.sim.applyDirective(sneaky);
    const stored = h.sim.getDirective('other', 'sneaky-ref')!;
    h.sim.resetRequests();
    const shapes = [
      { directive: { namespace: 'other', name: 'sneaky-ref' } },
      { type: 'MODIFIED', object: stored },
      stored,
      {
        kind: 'Event',
        apiVersion: 'v1',
        metadata: { name: 'e', namespace: 'other' },
        involvedObject: {
          kind: 'PodBounceDirective',
          apiVersion: 'internal.gloo.solo.io/v2',
          namespace: 'other',
          name: 'sneaky-ref',
        },
        reason: 'Updated',
      },
    ];
    for (const shape of shapes) {
      const answer = await h.post(shape);
      expect(answer.status, JSON.stringify(shape).slice(0, 60)).toBe(403);
      expect(answer.body.message).toMatch(/"other" is not in ALLOWED_NAMESPACES/);
    }
    const dryRun = await fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${h.env.WEBHOOK_TOKENS}`,
      },
      body: JSON.stringify(shapes[0]),
    });
    expect(dryRun.status).toBe(403);
    // Refused before any API call: nothing read, no status or Event written where it lives.
    expect(h.sim.requests().filter((r) => r.path.includes('/namespaces/other/'))).toEqual([]);
    expect(h.sim.getDirective('other', 'sneaky-ref')?.status).toBeUndefined();
    await nothingHappened();
  });

  it('refuses an inline directive in another namespace before applying it (403)', async () => {
    const inline = directive('other', 'sneaky', [{ namespace: 'other', labels: { app: 'app' } }]);
    const answer = await h.post({ directive: inline });
    expect(answer.status).toBe(403);
    expect(h.sim.getDirective('other', 'sneaky')).toBeUndefined();
    // A rootCertSync reading a Secret outside the list is refused too.
    const secret = directive('allowed', 'secret', [
      {
        namespace: 'allowed',
        rootCertSync: rootCertSync('kube-system', 'allowed'),
      },
    ]);
    expect((await h.post({ directive: secret })).status).toBe(403);
    expect(h.sim.getDirective('allowed', 'secret')).toBeUndefined();
    await nothingHappened();
  });

  it('refuses a dry run of a directive outside the list (403)', async () => {
    const response = await fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${h.env.WEBHOOK_TOKENS}`,
      },
      body: JSON.stringify({ directive: { namespace: 'allowed', name: 'mixed' } }),
    });
    expect(response.status).toBe(403);
  });

  it('answers 422 for more than MAX_SELECTORS selectors, before anything is applied', async () => {
    const many = Array.from({ length: 20_000 }, () => ({ namespace: 'allowed' }));
    const answer = await h.post({ directive: directive('allowed', 'huge', many) });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toMatch(/MAX_SELECTORS \(64\)/);
    expect(h.sim.getDirective('allowed', 'huge')).toBeUndefined();

    // A directive already in the cluster with 65 selectors: 422, nothing enqueued.
    const over = Array.from({ length: 65 }, () => ({
      namespace: 'allowed',
      labels: { app: 'app' },
    }));
    h.sim.applyDirective(directive('allowed', 'over', over));
    const ref = await h.post({ directive: { namespace: 'allowed', name: 'over' } });
    expect(ref.status).toBe(422);
    await nothingHappened();
  });

  it('answers 422 naming maxConcurrentSelectors outside 1..MAX_SELECTORS, before anything is applied', async () => {
    const selectors = [{ namespace: 'allowed', labels: { app: 'app' } }];
    for (const [value, pattern] of [
      [0, /maxConcurrentSelectors/],
      [2.5, /maxConcurrentSelectors/],
      ['3', /maxConcurrentSelectors/],
      [65, /maxConcurrentSelectors is 65, more than MAX_SELECTORS \(64\)/],
    ] as const) {
      const inline = directive('allowed', 'too-wide', selectors);
      (inline.spec as Record<string, unknown>).maxConcurrentSelectors = value;
      const answer = await h.post({ directive: inline });
      expect(answer.status, String(value)).toBe(422);
      expect(JSON.stringify(answer.body), String(value)).toMatch(pattern);
      expect(h.sim.getDirective('allowed', 'too-wide')).toBeUndefined();
    }
    await nothingHappened();
  });

  it('confines the directive routes to ALLOWED_NAMESPACES (403, nothing read or changed)', async () => {
    h.sim.applyDirective(
      directive('other', 'outside', [{ namespace: 'other', labels: { app: 'app' } }]),
    );
    const { answers, served } = await callDirectiveRoutes(
      h,
      'other',
      'outside',
      h.env.WEBHOOK_TOKENS!,
    );
    for (const answer of answers) {
      expect(answer.status, answer.route).toBe(403);
      expect(answer.body.message).toMatch(/"other" is not in ALLOWED_NAMESPACES/);
    }
    expect(served.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(h.sim.getDirective('other', 'outside')?.metadata.annotations).toBeUndefined();
  });

  it('refuses the inline form with 403 when INLINE_DIRECTIVES=false', async () => {
    const strict = await startServe(
      { ...h.config, inlineDirectives: false },
      createLogger('silent'),
      h.kube,
    );
    try {
      const inline = directive('allowed', 'inline', [{ namespace: 'allowed' }]);
      const response = await fetch(`${strict.url}/v1/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${h.env.WEBHOOK_TOKENS}`,
        },
        body: JSON.stringify({ directive: inline }),
      });
      expect(response.status).toBe(403);
      expect(((await response.json()) as any).message).toMatch(/INLINE_DIRECTIVES=false/);
      expect(h.sim.getDirective('allowed', 'inline')).toBeUndefined();
    } finally {
      await strict.close();
    }
  });
});

describe("the worker's own namespace check", () => {
  let h: Harness;
  beforeAll(async () => {
    // The api admits every namespace; the worker's settings do not (jobs queued under another
    // setting, or a worker configured more strictly than its api).
    h = await startHarness('bounds-worker', { worker: false });
    addApp(h, 'allowed');
    addApp(h, 'other');
  });
  afterAll(async () => h.close());

  it('fails the selector terminally with a clear cause and bounces nothing', async () => {
    const strict = { ...h.config, allowedNamespaces: ['allowed'] };
    const worker = startWork(strict, createLogger('silent'), h.kube);
    try {
      h.sim.applyDirective(
        directive('allowed', 'certs', [
          { namespace: 'allowed', labels: { app: 'app' } },
          { namespace: 'other', labels: { app: 'app' } },
        ]),
      );
      const answer = await h.post({ directive: { namespace: 'allowed', name: 'certs' } });
      expect(answer.status).toBe(202);
      const failed = await waitForState(h, 'allowed', 'certs', 'FAILED');
      expect(failed.status.error).toBe(
        'selector 1: namespace "other" is not in ALLOWED_NAMESPACES; nothing was bounced',
      );
      // Terminal at the first attempt: no retries with backoff.
      const job = await eventually('the job to fail', async () => {
        const found = await h.serve.queue.getJob(answer.body.jobIds[1]);
        // Read again once failed: the copy fetched before the state check may predate the failure.
        return (await found?.getState()) === 'failed'
          ? h.serve.queue.getJob(answer.body.jobIds[1])
          : undefined;
      });
      expect(job?.attemptsMade).toBe(1);
      expect(h.sim.deletedPods().filter((pod) => pod.namespace === 'other')).toEqual([]);
      expect(h.sim.deletedPods().filter((pod) => pod.namespace === 'allowed')).toHaveLength(2);
    } finally {
      await worker.close();
    }
  });
});
