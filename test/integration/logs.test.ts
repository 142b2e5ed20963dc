import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogCapture } from '../support/log-capture.js';
import { directive, startHarness, waitForState, type Harness } from '../support/harness.js';

// An unnamed token goes by its place (token1); a `name=token` entry by its name (DESIGN §2).
const TOKENS = ['first-token-Aq1Zs2Xw3', 'second-token-Ed4Rf5Tg6'];
const NAMED = { name: 'issuer', token: '3f9c2a7e1b8d4c6f0a5e' };
const HMAC_SECRET = 'hmac-secret-Yh7Uj8Ik9';
const DASHBOARD = { user: 'admin', password: 'dashboard-pw-Ol0Pm1' };

/**
 * The logs of a run at info level: level names, no line for probes, scrapes and the dashboard's
 * static files, the run's ids on every line of its jobs, and who sent each event (never how).
 */
describe('logs', () => {
  let h: Harness;
  const capture = new LogCapture();
  const parsed = (): Record<string, any>[] => capture.lines().map((line) => JSON.parse(line));
  beforeAll(async () => {
    h = await startHarness('logs-info', {
      logDestination: capture,
      env: {
        LOG_LEVEL: 'info',
        WEBHOOK_TOKENS: [...TOKENS, `${NAMED.name}=${NAMED.token}`].join(','),
        WEBHOOK_HMAC_SECRET: HMAC_SECRET,
        DASHBOARD_USER: DASHBOARD.user,
        DASHBOARD_PASSWORD: DASHBOARD.password,
      },
    });
    for (const app of ['istiod', 'reviews', 'ratings']) {
      h.sim.addWorkload({
        namespace: 'mesh',
        name: app,
        kind: 'ReplicaSet',
        labels: { app },
        replicas: 2,
        readinessDelayMs: 50,
      });
      h.sim.applyDirective(
        directive('mesh', app, [{ namespace: 'mesh', labels: { app }, waitForReplicas: 2 }]),
      );
    }
  });
  afterAll(async () => h.close());

  it('names levels, says who sent each event, and tags every job line with its run', async () => {
    const issuedAt = new Date(Date.now() - 60_000).toISOString();
    const byToken = await h.post(
      { directive: { namespace: 'mesh', name: 'istiod' }, issuedAt },
      {
        token: TOKENS[1],
      },
    );
    expect(byToken.status).toBe(202);
    const raw = JSON.stringify({ directive: { namespace: 'mesh', name: 'reviews' } });
    const signature = `sha256=${createHmac('sha256', HMAC_SECRET).update(raw).digest('hex')}`;
    const bySignature = await h.post(undefined, {
      token: null,
      raw,
      headers: { 'x-signature-256': signature },
    });
    expect(bySignature.status).toBe(202);
    const byName = await h.post(
      { directive: { namespace: 'mesh', name: 'ratings' } },
      { token: NAMED.token },
    );
    expect(byName.status).toBe(202);
    for (const app of ['istiod', 'reviews', 'ratings'])
      await waitForState(h, 'mesh', app, 'FINISHED');

    const lines = parsed();
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(['info', 'warn', 'error', 'fatal']).toContain(line.level);

    const accepted = lines.filter((line) => line.msg === 'cert-issued event accepted');
    const sender = (name: string) => accepted.find((line) => line.directive === `mesh/${name}`);
    expect(sender('istiod')).toMatchObject({
      sender: 'token1',
      run: String(Date.parse(issuedAt)),
      jobIds: byToken.body.jobIds,
    });
    expect(sender('reviews')).toMatchObject({ sender: 'hmac', run: '0' });
    expect(sender('ratings')).toMatchObject({ sender: 'issuer' });

    const jobLines = lines.filter((line) => line.jobId !== undefined);
    expect(jobLines.length).toBeGreaterThan(4);
    for (const line of jobLines) {
      expect(line.directive).toMatch(/^mesh\//);
      expect(line.run).toMatch(/^\d+$/);
    }
    const text = capture.text();
    for (const secret of [...TOKENS, NAMED.token, HMAC_SECRET, signature.slice(7)]) {
      expect(text).not.toContain(secret);
    }
  });

  it('writes no info line for probes, scrapes and the dashboard static files', async () => {
    const before = capture.lines().length;
    const basic = Buffer.from(`${DASHBOARD.user}:${DASHBOARD.password}`).toString('base64');
    const paths = ['/healthz', '/readyz', '/metrics', '/admin/queues/static/favicon.ico'];
    for (const path of paths) {
      const response = await fetch(`${h.serve.url}${path}`, {
        headers: { authorization: `Basic ${basic}` },
      });
      expect(response.status).toBe(200);
    }
    // A request that is not routine is still logged: the capture sees requests at all.
    expect((await fetch(`${h.serve.url}/v1/directives/mesh/istiod`)).status).toBe(401);
    const logged = capture
      .lines()
      .slice(before)
      .map((line) => JSON.parse(line))
      .map((line) => line.req?.url)
      .filter((url) => url !== undefined);
    expect(logged).toEqual(['/v1/directives/mesh/istiod']);
  });
});
