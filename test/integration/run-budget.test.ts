// MAX_RUNS_PER_HOUR: a directive that started that many runs in the past hour is refused a new one
// (429 too_many_runs, Retry-After), nothing enqueued, one TooManyRuns Warning Event a minute at
// most; duplicates never count, and other directives are not affected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { directive, eventually, startHarness, type Harness } from '../support/harness.js';

describe('the run budget of a directive', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('run-budget', { worker: false, env: { MAX_RUNS_PER_HOUR: '2' } });
    for (const name of ['looping', 'other']) {
      h.sim.applyDirective(
        directive('bookinfo', name, [{ namespace: 'bookinfo', labels: { app: name } }]),
      );
    }
  });
  afterAll(async () => h.close());

  // Fixed once: a repeat must carry the very same issuedAt.
  const start = Math.floor(Date.now() / 1000);
  const at = (secondsAgo: number): string => new Date((start - secondsAgo) * 1000).toISOString();
  const send = (name: string, issuedAt: string) =>
    h.post({ directive: { namespace: 'bookinfo', name }, issuedAt });

  it('refuses the run over the budget with 429 and Retry-After, and counts no duplicate', async () => {
    expect((await send('looping', at(50))).status).toBe(202);
    // A duplicate of the first run, twice: never counted.
    expect((await send('looping', at(50))).body.duplicate).toBe(true);
    expect((await send('looping', at(50))).body.duplicate).toBe(true);
    expect((await send('looping', at(40))).status).toBe(202);
    const jobs = await h.serve.queue.getJobCounts();

    const refused = await send('looping', at(30));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'too_many_runs' });
    expect(refused.body.message).toMatch(/MAX_RUNS_PER_HOUR/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Nothing enqueued for it, and a second refusal records no second Event.
    expect((await send('looping', at(20))).status).toBe(429);
    expect(await h.serve.queue.getJobCounts()).toEqual(jobs);
    const events = () =>
      h.sim
        .events()
        .filter(
          (event: any) =>
            event.reason === 'TooManyRuns' && event.involvedObject?.name === 'looping',
        );
    await eventually('the TooManyRuns Event', () => (events().length > 0 ? true : undefined));
    expect(events()).toHaveLength(1);
    expect(events()[0]).toMatchObject({ type: 'Warning' });
    // A repeat of an accepted run is still a duplicate, and another directive still runs.
    expect((await send('looping', at(40))).body.duplicate).toBe(true);
    expect((await send('other', at(30))).status).toBe(202);
  });

  it('counts a new generation as a run too', async () => {
    const spec = (app: string) => [{ namespace: 'bookinfo', labels: { app } }];
    h.sim.applyDirective(directive('bookinfo', 'edited', spec('a')));
    expect((await h.post({ directive: { namespace: 'bookinfo', name: 'edited' } })).status).toBe(
      202,
    );
    h.sim.applyDirective(directive('bookinfo', 'edited', spec('b')));
    expect((await h.post({ directive: { namespace: 'bookinfo', name: 'edited' } })).status).toBe(
      202,
    );
    h.sim.applyDirective(directive('bookinfo', 'edited', spec('c')));
    expect((await h.post({ directive: { namespace: 'bookinfo', name: 'edited' } })).status).toBe(
      429,
    );
  });

  it('keeps counting a directive deleted and re-created under the same name', async () => {
    const spec = [{ namespace: 'bookinfo', labels: { app: 'replaced' } }];
    h.sim.applyDirective(directive('bookinfo', 'replaced', spec));
    expect((await send('replaced', at(50))).status).toBe(202);
    expect((await send('replaced', at(40))).status).toBe(202);
    // A new uid under the name (a GitOps tool replacing the object): the same directive's budget.
    h.sim.deleteDirective('bookinfo', 'replaced');
    h.sim.applyDirective(directive('bookinfo', 'replaced', spec));
    const refused = await send('replaced', at(30));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'too_many_runs' });
  });
});
