// MAX_RUNS_PER_HOUR for inline directives: an event whose run the budget refuses is refused
// before its apply, so that the 429 writes nothing to the cluster (a spec written without a run
// would supersede the run in progress); a repeat of an accepted run stays a duplicate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { directive, eventually, startHarness, type Harness } from '../support/harness.js';

describe('the run budget of an inline directive', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('inline-budget', { worker: false, env: { MAX_RUNS_PER_HOUR: '2' } });
  });
  afterAll(async () => h.close());

  const start = Math.floor(Date.now() / 1000);
  const at = (secondsAgo: number): string => new Date((start - secondsAgo) * 1000).toISOString();
  const inline = (name: string, maxUnavailable: number) =>
    directive('bookinfo', name, [{ namespace: 'bookinfo', labels: { app: name }, maxUnavailable }]);
  const send = (name: string, maxUnavailable: number, issuedAt: string) =>
    h.post({ directive: inline(name, maxUnavailable), issuedAt });

  it('refuses a spec change over the budget with 429 and leaves the directive as it was', async () => {
    expect((await send('looping', 1, at(50))).status).toBe(202);
    expect((await send('looping', 1, at(40))).status).toBe(202);
    const before = h.sim.getDirective('bookinfo', 'looping')!;
    const jobs = await h.serve.queue.getJobCounts();

    const refused = await send('looping', 2, at(30));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'too_many_runs' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const after = h.sim.getDirective('bookinfo', 'looping')!;
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec).toEqual(before.spec);
    expect(after.spec.podsToBounce[0]?.maxUnavailable).toBe(1);
    expect(await h.serve.queue.getJobCounts()).toEqual(jobs);
    const events = () =>
      h.sim
        .events()
        .filter((e: any) => e.reason === 'TooManyRuns' && e.involvedObject?.name === 'looping');
    await eventually('the TooManyRuns Event', () => (events().length > 0 ? true : undefined));
    expect(events()[0]).toMatchObject({ type: 'Warning' });
  });

  it('answers a repeat of an accepted run as a duplicate while the budget is spent', async () => {
    const repeat = await send('looping', 1, at(40));
    expect(repeat.status).toBe(202);
    expect(repeat.body.duplicate).toBe(true);
    // A later issuance of the same spec is a new run: refused, and the directive unchanged.
    const generation = h.sim.getDirective('bookinfo', 'looping')!.metadata.generation;
    expect((await send('looping', 1, at(10))).status).toBe(429);
    expect(h.sim.getDirective('bookinfo', 'looping')!.metadata.generation).toBe(generation);
  });

  it('creates no directive re-created under a spent name', async () => {
    expect((await send('gone', 1, at(50))).status).toBe(202);
    expect((await send('gone', 2, at(40))).status).toBe(202);
    h.sim.deleteDirective('bookinfo', 'gone');
    expect((await send('gone', 3, at(30))).status).toBe(429);
    expect(h.sim.getDirective('bookinfo', 'gone')).toBeUndefined();
    // No Event about an object that does not exist.
    const about = h.sim.events().filter((e: any) => e.involvedObject?.name === 'gone');
    expect(about.filter((e: any) => e.reason === 'TooManyRuns')).toEqual([]);
  });
});
