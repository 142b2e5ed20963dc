// An alert name is Prometheus's text, not pod-bouncer's: control characters in it (an escape
// sequence, BEL, a bidi override) never reach the Ready message, the Events or a dry run, where
// `kubectl get` and chat clients would obey them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { FakePrometheus } from '../support/fake-prometheus.js';
import { startGatedOnePod } from '../support/gated.js';
import { waitForEvents, waitForReady, type Harness } from '../support/harness.js';

const NS = 'hostile';
const HOSTILE = 'Mesh\x1b]0;owned\x07Broken\x07\x1b[2J\u202eDENIF\x9b1A\x7f';
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describe('a hostile alert name', () => {
  let h: Harness;
  let prom: FakePrometheus;

  beforeAll(async () => {
    ({ h, prom } = await startGatedOnePod('gates-hostile', NS, HOSTILE));
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await prom?.close();
  });

  it('reaches the Ready message and the Events without its control characters', async () => {
    expect((await h.post({ directive: { namespace: NS, name: 'certs' } })).status).toBe(202);
    const ready = await waitForReady(h, NS, 'certs', 'Gated');
    expect(ready.message).toContain('firing: MeshBroken');
    expect(ready.message).not.toMatch(CONTROLS);
    // The Event follows the status write it tells.
    const gated = await waitForEvents(h, NS, 'Gated');
    for (const event of gated) expect(event.message).not.toMatch(CONTROLS);
  });

  it('is shown plain in a dry run', async () => {
    const response = await fetch(`${h.serve.url}/v1/events?dryRun=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${h.env.WEBHOOK_TOKENS}`,
      },
      body: JSON.stringify({ directive: { namespace: NS, name: 'certs' } }),
    });
    const plan = (await response.json()) as any;
    expect(plan.gates[0].why).toBe('firing: MeshBrokenDENIF');
  });
});
