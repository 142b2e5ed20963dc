// DESIGN §4: every accepted run ends FINISHED or FAILED with a cause. A text from outside (an alert
// name from Prometheus) that is far longer than the API server takes in a condition message is
// written cut short, so the status write is not refused and the run goes on; Events and log lines
// stay short too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { FakePrometheus } from '../support/fake-prometheus.js';
import { startGatedOnePod } from '../support/gated.js';
import { waitForEvents, waitForReady, waitForState, type Harness } from '../support/harness.js';
import { LogCapture } from '../support/log-capture.js';

const NS = 'long-texts';
/** An alert name of 200 KB, with a character outside the BMP where a cut could split it. */
const LONG_ALERT = `Mesh${'\u{1F525}'.repeat(100_000)}`;

/** A half of a surrogate pair on its own: what a cut inside a pair leaves. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

describe('a text longer than the API server takes', () => {
  let h: Harness;
  let prom: FakePrometheus;
  const logs = new LogCapture();

  beforeAll(async () => {
    ({ h, prom } = await startGatedOnePod('long-texts', NS, LONG_ALERT, {
      env: { LOG_LEVEL: 'debug' },
      logDestination: logs,
    }));
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await prom?.close();
  });

  it('is written cut short in Ready and the Events, and the run goes on once the gate opens', async () => {
    expect((await h.post({ directive: { namespace: NS, name: 'certs' } })).status).toBe(202);
    const ready = await waitForReady(h, NS, 'certs', 'Gated');
    expect(ready.message).toContain('firing: Mesh\u{1F525}');
    expect(Buffer.byteLength(ready.message)).toBeLessThanOrEqual(4096);
    expect(ready.message.endsWith('…')).toBe(true);
    expect(ready.message).not.toMatch(LONE_SURROGATE);
    // The Event follows the status write that it tells.
    const gated = await waitForEvents(h, NS, 'Gated');
    for (const event of gated) {
      expect(Buffer.byteLength(event.message)).toBeLessThanOrEqual(1024);
      expect(event.message).not.toMatch(LONE_SURROGATE);
    }
    prom.firing.clear();
    await waitForState(h, NS, 'certs', 'FINISHED');
    const longest = Math.max(...logs.lines().map((line) => line.length));
    expect(longest).toBeLessThan(16_384);
  }, 60_000);
});
