import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

describe('/readyz', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('readyz', { worker: false });
  });
  afterAll(async () => h.close());

  it('stays ready while the Kubernetes API fails, and says so in the body', async () => {
    h.sim.setFaults({ errorRate: 1, status: 503 });
    try {
      const ready = await h.get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ready');
      expect(ready.body.redis).toBe('ok');
      expect(ready.body.kubernetes).not.toBe('ok');
      // Senders get the designed 503 with Retry-After instead of a refused connection.
      const event = await h.post({ directive: { namespace: 'istio-system', name: 'any' } });
      expect(event.status).toBe(503);
      expect(event.headers.get('retry-after')).not.toBeNull();
    } finally {
      h.sim.setFaults(null);
    }
    expect((await h.get('/readyz')).body.kubernetes).toBe('ok');
  });
});
