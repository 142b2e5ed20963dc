import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_AT_ONCE,
  directive,
  eventually,
  startHarness,
  TOKEN,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { queueSettled } from '../support/routers.js';
import {
  MAX_TRACKED_DIRECTIVES,
  sweepDeletedDirectives,
  trackDirective,
  trackedDirectives,
} from '../../src/metrics/directive-series.js';
import { observeTransition } from '../../src/metrics/directives.js';
import type { TransitionWritten } from '../../src/status/writer.js';

/** The value of one sample line of the Prometheus text format, or undefined when absent. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((pair) => line.includes(pair)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    // Counts DELETE requests per pod: the Gloo agent's way of bouncing, set by name.
    h = await startHarness('metrics', { env: ALL_AT_ONCE });
  });
  afterAll(async () => h.close());

  const scrape = async () => {
    const response = await fetch(`${h.serve.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  it('counts events, jobs by state, pods bounced, waits and Kubernetes requests of a real run', async () => {
    h.sim.addWorkload({
      namespace: 'istio-system',
      name: 'istiod',
      kind: 'ReplicaSet',
      labels: { app: 'istiod' },
      replicas: 3,
      readinessDelayMs: 100,
    });
    h.sim.applyDirective(
      directive('istio-system', 'measured', [
        { namespace: 'istio-system', labels: { app: 'istiod' }, waitForReplicas: 3 },
      ]),
    );
    const before = await scrape();
    const base = (name: string, labels: Record<string, string> = {}) =>
      sample(before, name, labels) ?? 0;

    const ref = { directive: { namespace: 'istio-system', name: 'measured' } };
    expect((await h.post(ref)).status).toBe(202);
    expect((await h.post(ref)).body.duplicate).toBe(true);
    expect((await h.post({ directive: { namespace: 'istio-system' } })).status).toBe(400);
    expect((await h.post(ref, { token: 'wrong' })).status).toBe(401);
    await waitForState(h, 'istio-system', 'measured', 'FINISHED');
    await queueSettled(h);

    // Observations made after the answer (onResponse, worker events) land a moment later.
    const text = await eventually('the run to be counted', async () => {
      const current = await scrape();
      return (sample(current, 'pod_bouncer_selector_duration_seconds_count', {
        outcome: 'completed',
      }) ?? 0) > base('pod_bouncer_selector_duration_seconds_count', { outcome: 'completed' })
        ? current
        : undefined;
    });
    const delta = (name: string, labels: Record<string, string> = {}) =>
      (sample(text, name, labels) ?? 0) - base(name, labels);

    expect(
      delta('pod_bouncer_events_received_total', {
        shape: 'native-reference',
        outcome: 'accepted',
        code: '202',
      }),
    ).toBe(1);
    expect(
      delta('pod_bouncer_events_received_total', {
        shape: 'native-reference',
        outcome: 'duplicate',
        code: '202',
      }),
    ).toBe(1);
    expect(
      delta('pod_bouncer_events_received_total', {
        shape: 'unknown',
        outcome: 'rejected',
        code: '400',
      }),
    ).toBe(1);
    expect(
      delta('pod_bouncer_events_received_total', {
        shape: 'unknown',
        outcome: 'rejected',
        code: '401',
      }),
    ).toBe(1);
    expect(delta('pod_bouncer_pods_bounced_total', { namespace: 'istio-system' })).toBe(3);
    expect(
      delta('pod_bouncer_wait_duration_seconds_count', {
        gate: 'waitForReplicas',
        outcome: 'passed',
      }),
    ).toBe(1);
    expect(delta('pod_bouncer_kubernetes_requests_total', { verb: 'delete', code: '2xx' })).toBe(3);
    expect(
      delta('pod_bouncer_kubernetes_requests_total', { verb: 'patch', code: '2xx' }),
    ).toBeGreaterThanOrEqual(3);
    // The select's LIST; the gates read the namespace's pod watch, which select starts.
    expect(
      delta('pod_bouncer_kubernetes_request_duration_seconds_count', { verb: 'list' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'pod_bouncer_jobs', { state: 'completed' })).toBe(1);
    expect(sample(text, 'pod_bouncer_jobs', { state: 'failed' })).toBe(0);
    expect(sample(text, 'pod_bouncer_queue_depth')).toBe(0);
    // Default process metrics come along.
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it("removes a deleted directive's series, and keeps their number bounded", async () => {
    h.sim.addWorkload({
      namespace: 'bookinfo',
      name: 'ratings',
      kind: 'ReplicaSet',
      labels: { app: 'ratings' },
      replicas: 1,
    });
    h.sim.applyDirective(
      directive('bookinfo', 'short-lived', [{ namespace: 'bookinfo', labels: { app: 'ratings' } }]),
    );
    const accepted = await h.post({ directive: { namespace: 'bookinfo', name: 'short-lived' } });
    expect(accepted.status).toBe(202);
    await waitForState(h, 'bookinfo', 'short-lived', 'FINISHED');
    const labels = { namespace: 'bookinfo', name: 'short-lived' };
    // The gauge is set once the FINISHED write has returned, a moment after the status shows it.
    await eventually('the FINISHED series', async () =>
      sample(await scrape(), 'pod_bouncer_directive_state', { ...labels, state: 'FINISHED' }) === 1
        ? true
        : undefined,
    );

    // The sweep the roles run every 30 s, on the api's own watch cache.
    const exists = async (ref: { namespace: string; name: string }) =>
      (await h.serve.directives()).exists(ref);
    expect(await sweepDeletedDirectives(exists)).toBe(0);
    h.sim.deleteDirective('bookinfo', 'short-lived');
    await eventually('the watch to see the deletion', async () =>
      (await exists(labels)) === false ? true : undefined,
    );
    expect(await sweepDeletedDirectives(exists)).toBeGreaterThanOrEqual(1);
    const after = await scrape();
    for (const name of [
      'pod_bouncer_directive_state',
      'pod_bouncer_directive_last_transition_timestamp_seconds',
      'pod_bouncer_directive_last_finished_timestamp_seconds',
    ]) {
      expect(sample(after, name, labels), name).toBeUndefined();
    }

    // A flood of inline directives cannot grow the series without bound: the stalest go first.
    for (let i = 0; i < MAX_TRACKED_DIRECTIVES + 50; i += 1) {
      observeTransition({
        transition: { describe: 'accepted' },
        directive: {
          metadata: { namespace: 'flood', name: `d${i}` },
          status: { state: 'PENDING' },
        },
      } as unknown as TransitionWritten);
    }
    expect(trackedDirectives().length).toBe(MAX_TRACKED_DIRECTIVES);
    const flooded = await scrape();
    expect(
      sample(flooded, 'pod_bouncer_directive_state', { namespace: 'flood', name: 'd0' }),
    ).toBeUndefined();
    expect(
      sample(flooded, 'pod_bouncer_directive_state', {
        namespace: 'flood',
        name: `d${MAX_TRACKED_DIRECTIVES + 49}`,
        state: 'PENDING',
      }),
    ).toBe(1);
    trackDirective({ namespace: 'flood', name: 'reset' }, 0);
  });

  it('counts Kubernetes API errors by status code', async () => {
    const before = await scrape();
    // A dry run reads the directive from the API server itself (no cache in between).
    const missing = await fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ directive: { namespace: 'istio-system', name: 'absent' } }),
    });
    expect(missing.status).toBe(404);
    const after = await scrape();
    const get404 = (text: string) =>
      sample(text, 'pod_bouncer_kubernetes_requests_total', { verb: 'get', code: '404' }) ?? 0;
    expect(get404(after) - get404(before)).toBeGreaterThanOrEqual(1);
  });
});
