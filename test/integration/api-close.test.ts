import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startHarness } from '../support/harness.js';

describe('closing the api', () => {
  it('does not wait for a connection that never sends a request', async () => {
    const h = await startHarness('api-close', { worker: false });
    // As a browser's preconnect: connected, silent. Without the grace, closing would wait for the
    // socket's own timeout (BODY_TIMEOUT_SECONDS + 10 s), longer than this test allows.
    const { port } = new URL(h.serve.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await h.close();
    await closed;
    expect(socket.destroyed).toBe(true);
  }, 15_000);
});
