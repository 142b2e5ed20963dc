import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawWatch } from '../../src/kube/raw-watch.js';
import { eventually, startHarness, type Harness } from '../support/harness.js';

describe('closing the Kubernetes gateway', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('kube-close', { worker: false });
  });
  afterAll(async () => h?.close());

  it('cuts a watch stream still open, instead of waiting for the API server to end it', async () => {
    // A stream nobody stops, as one started while the roles were closing: the simulator would
    // keep it open for as long as the process lives.
    let ended: unknown = 'open';
    const controller = await rawWatch(
      h.kube.kubeConfig,
      { path: '/api/v1/namespaces/close-test/pods', queryParams: {}, timeoutMs: 600_000 },
      () => undefined,
      (error) => {
        ended = error;
      },
    );
    expect(controller).toBeDefined();
    await eventually('the watch to be open on the simulator', () =>
      h.sim.requests().some((r) => r.watch && r.namespace === 'close-test') ? true : undefined,
    );

    await h.kube.close();
    await eventually('the watch to end', () => (ended === 'open' ? undefined : true));
  }, 30_000);
});
