import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiredBinary } from '../support/binaries.js';
import {
  startHarness,
  stuckMesh,
  waitForState,
  type Harness,
  ALL_AT_ONCE,
} from '../support/harness.js';

// .ci/run installs chromium: in CI a missing browser fails this file; elsewhere it skips, loudly.
const CHROMIUM = requiredBinary('chromium', 'apt-get install -y chromium');
const USER = 'ops';
const PASSWORD = 'dashboard-password-0123';

describe.skipIf(CHROMIUM === undefined)('the dashboard in a real browser', () => {
  let h: Harness;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    h = await startHarness('dash-browser', {
      env: {
        ...ALL_AT_ONCE,
        DASHBOARD_USER: USER,
        DASHBOARD_PASSWORD: PASSWORD,
        READINESS_TIMEOUT_SECONDS: '1',
      },
    });
    profile = await mkdtemp(join(tmpdir(), 'pod-bouncer-chromium-'));
    // A fresh profile per run: nothing cached, no stored credentials.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      httpCredentials: { username: USER, password: PASSWORD },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await context?.close();
    await h?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it('an operator logs in, finds the failed selector job and retries it; the directive finishes', async () => {
    stuckMesh(h, 'stuck');
    const accepted = await h.post({ directive: { namespace: 'istio-system', name: 'stuck' } });
    expect(accepted.status).toBe(202);
    await waitForState(h, 'istio-system', 'stuck', 'FAILED');
    const failedJobId: string = accepted.body.jobIds[0];

    // Only the app under test: the UI's web-font link must not reach out of the sandbox.
    const origin = new URL(h.serve.url).origin;
    await context.route('**/*', (route) =>
      route.request().url().startsWith(origin) ? route.continue() : route.abort(),
    );
    const page = await context.newPage();
    const response = await page.goto(`${h.serve.url}/admin/queues`, {
      waitUntil: 'domcontentloaded',
    });
    expect(response?.status()).toBe(200);

    // Navigate as a person would: the queue, then its Failed tab.
    const queueLink = page.locator('nav a', { hasText: /^bounce$/ }).first();
    await queueLink.waitFor();
    await queueLink.click();
    await page.waitForURL(/\/admin\/queues\/queue\/bounce/);
    await page
      .getByText(/^failed/i)
      .first()
      .click();
    await page.waitForURL(/status=failed/);
    const card = page.locator('div[class^="card-"]', { has: page.getByText(failedJobId) });
    await card
      .getByText(/^istio-system\/stuck · selector 0 · istio-system app=istiod — generation 1, /)
      .waitFor();
    await card.getByText(/timed out after 1s waiting for 2 Ready/).waitFor();

    h.sim.setReadinessDelay('istio-system', 'istiod', 0);
    const retry = card.locator('button:has(svg.lucide-refresh-cw)');
    await retry.hover();
    await page.getByText('Retry', { exact: true }).waitFor();
    await retry.click();
    const answered = page.waitForResponse(
      (candidate) => candidate.request().method() === 'PUT' && candidate.url().endsWith('/retry'),
    );
    await page.getByRole('button', { name: 'Confirm' }).click();
    expect((await answered).status()).toBe(204);

    await waitForState(h, 'istio-system', 'stuck', 'FINISHED', 30_000, false);
    expect(h.sim.getDirective('istio-system', 'stuck')?.status?.error).toBe('');
    // 2 istiod pods once (the retry re-bounced nothing), then the gateway pod.
    expect(h.sim.deletedPods()).toHaveLength(3);
    for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);
  });
});
