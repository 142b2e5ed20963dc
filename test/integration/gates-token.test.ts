// PROMETHEUS_TOKEN_FILE is read again at each request: when the kubelet rotates a projected token
// (an atomic swap of the ..data symlink, as it writes projected volumes), the next request to
// Prometheus carries the new token.
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startFakePrometheus, type FakePrometheus } from '../support/fake-prometheus.js';
import {
  directive,
  eventually,
  startHarness,
  waitForState,
  type Harness,
} from '../support/harness.js';

/** A projected volume's layout: token -> ..data/token, ..data -> the current timestamped dir. */
async function writeToken(dir: string, version: number, token: string): Promise<void> {
  const target = `..${version}`;
  await mkdir(join(dir, target));
  await writeFile(join(dir, target, 'token'), token);
  await symlink(target, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
}

describe('the Prometheus token file', () => {
  let h: Harness;
  let prom: FakePrometheus;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pb-token-'));
    await writeToken(dir, 1, 'first-token\n');
    await symlink('..data/token', join(dir, 'token'));
    prom = await startFakePrometheus();
    prom.firing.add('MeshDown');
    h = await startHarness('gates-token', {
      env: {
        PROMETHEUS_URL: prom.url,
        PROMETHEUS_TOKEN_FILE: join(dir, 'token'),
        GATE_INTERVAL_SECONDS: '1',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await prom?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const authorizations = () => prom.headers.map((headers) => headers.authorization);

  it('sends the rotated token from the next request on', async () => {
    h.sim.addWorkload({
      namespace: 'token',
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'app' },
      replicas: 2,
    });
    const selector = { namespace: 'token', labels: { app: 'app' } };
    h.sim.applyDirective({
      ...directive('token', 'certs', [selector]),
      spec: { gates: [{ alerts: 'MeshDown' }], podsToBounce: [selector] },
    });
    expect((await h.post({ directive: { namespace: 'token', name: 'certs' } })).status).toBe(202);
    await eventually('a request with the first token', () =>
      authorizations().includes('Bearer first-token') ? true : undefined,
    );
    await writeToken(dir, 2, 'second-token\n');
    const rotatedAt = prom.headers.length;
    await eventually('a request with the rotated token', () =>
      authorizations().includes('Bearer second-token') ? true : undefined,
    );
    // Every request after the one in flight at the swap carries the new token, none the old.
    expect(authorizations().slice(rotatedAt + 1)).not.toContain('Bearer first-token');
    expect(authorizations().at(-1)).toBe('Bearer second-token');
    prom.firing.clear();
    await waitForState(h, 'token', 'certs', 'FINISHED');
  }, 60_000);
});
