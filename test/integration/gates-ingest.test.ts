// spec.gates and soakSeconds at ingest: a malformed gate (an alerts regex RE2 does not compile
// among them), or an alerts or query gate without PROMETHEUS_URL, is a 422 that names the field,
// and nothing is applied or enqueued.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { directive, startHarness, type Harness } from '../support/harness.js';

describe('gates at ingest', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('gates-ingest', { worker: false });
  });
  afterAll(async () => h.close());

  const selector = { namespace: 'bookinfo', labels: { app: 'reviews' } };
  const inline = (name: string, gates: unknown, extra: Record<string, unknown> = {}) => ({
    directive: {
      ...directive('bookinfo', name, [{ ...selector, ...extra }]),
      spec: { gates, podsToBounce: [{ ...selector, ...extra }] },
    },
  });

  it('refuses alerts and query gates when no Prometheus is configured, naming the gate', async () => {
    for (const gate of [{ alerts: 'IstioHigh5xxRate' }, { query: 'vector(1)', max: 1 }]) {
      const answer = await h.post(
        inline('needs-prometheus', [{ windows: [{ start: '02:00', end: '05:00' }] }, gate]),
      );
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ error: 'invalid_directive' });
      expect(answer.body.message).toMatch(/spec\.gates\[1\].*PROMETHEUS_URL/);
    }
    // A directive already in the cluster, by reference: the same answer.
    h.sim.applyDirective({
      ...directive('bookinfo', 'stored', [selector]),
      spec: { gates: [{ alerts: 'X' }], podsToBounce: [selector] },
    });
    const byReference = await h.post({ directive: { namespace: 'bookinfo', name: 'stored' } });
    expect(byReference.status).toBe(422);
    expect(h.sim.getDirective('bookinfo', 'needs-prometheus')).toBeUndefined();
    expect(await h.serve.queue.getJobCounts()).toMatchObject({
      waiting: 0,
      prioritized: 0,
      delayed: 0,
      'waiting-children': 0,
    });
  });

  it('names the field of a malformed gate or soak', async () => {
    const cases: Array<[unknown, Record<string, unknown>, RegExp]> = [
      [[{ windows: [{ start: '02:00', end: '25:00' }] }], {}, /spec\.gates\[0\]\.windows\[0\]/],
      [[{ windows: [{ start: '02:00', end: '05:00', timeZone: 'Mars/Olympus' }] }], {}, /IANA/],
      [[{ alerts: 'A', windows: [] }], {}, /spec\.gates\[0\].*exactly one/],
      // The regex is RE2's, as PromQL's =~: no backreferences, no lookarounds.
      [[{ alerts: '(Kube)\\1' }], {}, /spec\.gates\[0\]\.alerts.*RE2.*invalid escape sequence/],
      [
        [{ alerts: '(?!Watchdog).*' }],
        {},
        /spec\.gates\[0\]\.alerts.*RE2.*unsupported Perl syntax/,
      ],
      [undefined, { soakSeconds: -1 }, /spec\.podsToBounce\[0\]\.soakSeconds/],
      // Quoted in the Ready message and the Events, which the API server keeps short.
      [
        [{ query: `up{job="${'a'.repeat(40_000)}"}`, max: 1 }],
        {},
        /gates\[0\]\.query.*at most 4096/,
      ],
      [[{ alerts: `(${'A|'.repeat(3000)}B)` }], {}, /spec\.gates\[0\]\.alerts.*at most 4096/],
    ];
    for (const [gates, extra, message] of cases) {
      const answer = await h.post(inline('malformed', gates, extra));
      expect(answer.status, JSON.stringify(gates ?? extra)).toBe(422);
      expect(JSON.stringify(answer.body)).toMatch(message);
    }
    expect(h.sim.getDirective('bookinfo', 'malformed')).toBeUndefined();
  });

  it('accepts windows without Prometheus, and a soak', async () => {
    h.sim.addWorkload({
      namespace: 'bookinfo',
      name: 'reviews',
      kind: 'ReplicaSet',
      labels: { app: 'reviews' },
      replicas: 1,
    });
    const answer = await h.post(
      inline(
        'windowed',
        [
          {
            windows: [
              { days: ['Sat', 'Sun'], start: '22:00', end: '02:00', timeZone: 'Europe/Berlin' },
            ],
          },
        ],
        { soakSeconds: 60 },
      ),
    );
    expect(answer.status).toBe(202);
    const stored = h.sim.getDirective('bookinfo', 'windowed') as any;
    expect(stored.spec.gates[0].windows[0]).toMatchObject({
      start: '22:00',
      end: '02:00',
      timeZone: 'Europe/Berlin',
    });
    expect(stored.spec.podsToBounce[0].soakSeconds).toBe(60);
  });
});
