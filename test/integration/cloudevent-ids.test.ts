// A CloudEvent `id` or `source` of absurd length is refused (400 naming it) before anything is
// kept or logged: both are stored in Redis for a day and logged with every answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogCapture } from '../support/log-capture.js';
import { directive, startHarness, type Harness } from '../support/harness.js';
import { postRaw } from '../support/routers.js';

const STRUCTURED = { 'content-type': 'application/cloudevents+json' };

describe('CloudEvent ids and sources are bounded', () => {
  let h: Harness;
  const capture = new LogCapture();
  beforeAll(async () => {
    h = await startHarness('ce-ids', {
      worker: false,
      logDestination: capture,
      env: { LOG_LEVEL: 'info' },
    });
    h.sim.applyDirective(
      directive('bookinfo', 'ids', [{ namespace: 'bookinfo', labels: { app: 'ids' } }]),
    );
  });
  afterAll(async () => h.close());

  const event = (attributes: Record<string, string>) =>
    JSON.stringify({
      specversion: '1.0',
      type: 't',
      time: new Date(Date.now() - 60_000).toISOString(),
      data: { directive: { namespace: 'bookinfo', name: 'ids' } },
      ...attributes,
    });
  const big = 'X'.repeat(300_000);

  it('refuses an id or source longer than 1024 characters, naming it, and logs no long line', async () => {
    for (const [field, attributes] of [
      ['id', { id: big, source: '/big' }],
      ['source', { id: 'ok-1', source: big }],
    ] as const) {
      const answer = await postRaw(h, event(attributes), STRUCTURED);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toMatch(new RegExp(`^${field}: must be at most 1024`));
    }
    const binary = await postRaw(
      h,
      JSON.stringify({ directive: { namespace: 'bookinfo', name: 'ids' } }),
      {
        'content-type': 'application/json',
        'ce-specversion': '1.0',
        'ce-id': 'y'.repeat(1025),
        'ce-source': '/s',
        'ce-type': 't',
      },
    );
    expect(binary.status).toBe(400);
    expect(binary.body.message).toMatch(/^ce-id: /);
    const longest = Math.max(0, ...capture.lines().map((line) => line.length));
    expect(longest).toBeLessThan(16_384);
  });

  it('accepts an id and a source of 1024 characters', async () => {
    const answer = await postRaw(
      h,
      event({ id: 'i'.repeat(1024), source: 's'.repeat(1024) }),
      STRUCTURED,
    );
    expect(answer.status).toBe(202);
  });
});
