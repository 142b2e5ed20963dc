import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TOKEN } from '../../src/sim/kubeconfig.js';
import { serviceAccountJwt } from '../../src/sim/index.js';
import { LogCapture } from '../support/log-capture.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';
import { rootCertSync } from '../support/root-cert.js';

const STATIC_TOKEN = 'static-token-Qm9vZ3Vz7731';
const HMAC_SECRET = 'hmac-secret-Zx81Yq0Lw2';
const SA_TOKEN = serviceAccountJwt({
  namespace: 'cert-manager',
  name: 'issuer',
  audiences: ['pod-bouncer'],
});
const WRONG_TOKEN = 'wrong-token-Hs6Gd2Mf9Jc';
const ROOT_CERT = 'ROOT-CERT-Yt4Ue7Io1Pa';
const PRIVATE_KEY = 'CA-PRIVATE-KEY-Lk0Mj9Nh8Bg';

/**
 * Every log line of a whole run at trace level — accepted events in every auth mode, refused
 * credentials, a rootCertSync over a Secret, API faults that log errors — is captured and searched
 * for each secret value, raw and in the encodings a leak would take.
 */
describe('secrets never reach the logs', () => {
  let h: Harness;
  const capture = new LogCapture();
  beforeAll(async () => {
    h = await startHarness('logs', {
      logDestination: capture,
      env: {
        LOG_LEVEL: 'trace',
        WEBHOOK_TOKENS: STATIC_TOKEN,
        WEBHOOK_HMAC_SECRET: HMAC_SECRET,
        WEBHOOK_TOKENREVIEW_AUDIENCE: 'pod-bouncer',
        WEBHOOK_ALLOWED_SERVICEACCOUNTS: 'cert-manager:issuer',
      },
    });
  });
  afterAll(async () => h.close());

  it('holds for a full run in every auth mode, with faults', async () => {
    h.sim.registerToken(SA_TOKEN, { username: 'system:serviceaccount:cert-manager:issuer' });
    h.sim.putSecret('istio-system', 'cacerts', {
      'root-cert.pem': ROOT_CERT,
      'ca-key.pem': PRIVATE_KEY,
    });
    h.sim.putConfigMap('mesh', 'istio-ca-root-cert', { 'root-cert.pem': ROOT_CERT });
    for (const app of ['istiod', 'reviews']) {
      h.sim.addWorkload({
        namespace: 'mesh',
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 2,
        readinessDelayMs: 50,
      });
    }
    const sync = rootCertSync('istio-system', 'mesh');
    const body = (name: string, app: string) =>
      JSON.stringify({
        directive: directive('mesh', name, [
          { namespace: 'mesh', labels: { app }, waitForReplicas: 2, rootCertSync: sync },
        ]),
      });
    const post = (raw: string, headers: Record<string, string>) =>
      h.post(undefined, { token: null, raw, headers });
    const signed = body('signed', 'reviews');
    const signature = `sha256=${createHmac('sha256', HMAC_SECRET).update(signed).digest('hex')}`;

    expect(
      (await post(body('static', 'istiod'), { authorization: `Bearer ${STATIC_TOKEN}` })).status,
    ).toBe(202);
    expect((await post(signed, { 'x-signature-256': signature })).status).toBe(202);
    expect(
      (await post(body('reviewed', 'istiod'), { authorization: `Bearer ${SA_TOKEN}` })).status,
    ).toBe(202);
    expect(
      (await post(body('refused', 'istiod'), { authorization: `Bearer ${WRONG_TOKEN}` })).status,
    ).toBe(401);
    expect((await post(signed, { 'x-signature-256': `${signature.slice(0, -2)}00` })).status).toBe(
      401,
    );
    // Transient API errors get logged with their cause: make some happen on reads and writes.
    h.sim.setFaults({ errorRate: 0.3, status: 500, resources: ['secrets', 'configmaps', 'pods'] });
    for (const name of ['static', 'signed', 'reviewed']) {
      await waitForState(h, 'mesh', name, 'FINISHED', 40_000);
    }
    h.sim.setFaults(null);
    expect((await h.get('/readyz')).status).toBe(200);

    const text = capture.text();
    expect(capture.lines().length).toBeGreaterThan(20);
    // The capture works: things that are not secret do appear.
    expect(text).toContain('mesh/static');
    const secrets = {
      STATIC_TOKEN,
      HMAC_SECRET,
      SA_TOKEN,
      WRONG_TOKEN,
      SIM_TOKEN,
      ROOT_CERT,
      PRIVATE_KEY,
      signature: signature.slice(7),
    };
    const leaks: string[] = [];
    for (const [label, value] of Object.entries(secrets)) {
      for (const form of [value, Buffer.from(value).toString('base64')]) {
        if (text.includes(form)) leaks.push(`${label} as ${form}`);
      }
    }
    expect(leaks).toEqual([]);
    expect(text).not.toMatch(/Bearer [A-Za-z0-9]/);
  });
});
