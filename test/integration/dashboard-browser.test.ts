import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiredBinary } from '../support/binaries.js';
import {
  eventually,
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
const DASHBOARD_ENV = { ...ALL_AT_ONCE, DASHBOARD_USER: USER, DASHBOARD_PASSWORD: PASSWORD };

/** The lucide icon of each job button bull-board 9.10 puts on a failed, delayed or completed card. */
const JOB_BUTTON_ICONS = {
  retry: 'lucide-refresh-cw',
  promote: 'lucide-corner-up-left',
  duplicate: 'lucide-files',
  updateData: 'lucide-pencil',
  clean: 'lucide-trash2',
  reschedule: 'lucide-clock',
};
type JobButton = keyof typeof JOB_BUTTON_ICONS;

/** The job buttons a card shows, named by their icons (the card's other buttons are left out). */
async function jobButtons(card: Locator): Promise<JobButton[]> {
  const icons = await card
    .locator('button svg[class*="lucide-"]')
    .evaluateAll((svgs) => svgs.flatMap((svg) => [...svg.classList]));
  return (Object.keys(JOB_BUTTON_ICONS) as JobButton[]).filter((button) =>
    icons.includes(JOB_BUTTON_ICONS[button]),
  );
}

/** The buttons above a status's job list (Retry all, Promote all, Clean all). */
const statusActions = (page: Page) =>
  page.locator('ul[class^="queueActions-"] button').allTextContents();

/** The items of the queue's menu (the ⋮ beside its name), closed again after reading. */
async function queueMenu(page: Page): Promise<string[]> {
  await page.locator('button[aria-haspopup="menu"][class^="trigger-"]').first().click();
  const items = page.getByRole('menuitem');
  await items.first().waitFor();
  const texts = (await items.allTextContents()).map((text) => text.trim());
  await page.keyboard.press('Escape');
  await items.first().waitFor({ state: 'detached' });
  return texts;
}

/** A page that reaches only the app under test: the UI's web-font link must not leave the sandbox. */
async function openPage(context: BrowserContext, h: Harness): Promise<Page> {
  const origin = new URL(h.serve.url).origin;
  const page = await context.newPage();
  await page.route('**/*', (route) =>
    route.request().url().startsWith(origin) ? route.continue() : route.abort(),
  );
  return page;
}

/** Confirms the action the UI asks about, and returns the status of the PUT it then sends. */
async function confirmPut(page: Page, urlEnd: string): Promise<number> {
  const answered = page.waitForResponse(
    (candidate) => candidate.request().method() === 'PUT' && candidate.url().endsWith(urlEnd),
  );
  await page.getByRole('button', { name: 'Confirm' }).click();
  return (await answered).status();
}

describe.skipIf(CHROMIUM === undefined)('the dashboard in a real browser', () => {
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
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
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  describe('a failed directive', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness('dash-browser', {
        env: { ...DASHBOARD_ENV, READINESS_TIMEOUT_SECONDS: '1' },
      });
    });
    afterAll(async () => h?.close());

    it('an operator logs in, finds the failed selector job and retries it; the directive finishes', async () => {
      stuckMesh(h, 'stuck');
      const accepted = await h.post({ directive: { namespace: 'istio-system', name: 'stuck' } });
      expect(accepted.status).toBe(202);
      await waitForState(h, 'istio-system', 'stuck', 'FAILED');
      const failedJobId: string = accepted.body.jobIds[0];

      const page = await openPage(context, h);
      const response = await page.goto(`${h.serve.url}/admin/queues`, {
        waitUntil: 'domcontentloaded',
      });
      expect(response?.status()).toBe(200);

      // The overview's queue menu: no Add job, Empty, Obliterate, concurrency or rate limit.
      expect(await queueMenu(page)).toEqual(['Retry all 1 failed jobs', 'Pause']);

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

      // Retry only: no Duplicate, Update data or Clean; Retry all above the list, no Clean all.
      expect(await jobButtons(card)).toEqual(['retry']);
      expect(await statusActions(page)).toEqual(['Retry all']);

      h.sim.setReadinessDelay('istio-system', 'istiod', 0);
      const retry = card.locator('button:has(svg.lucide-refresh-cw)');
      await retry.hover();
      await page.getByText('Retry', { exact: true }).waitFor();
      await retry.click();
      expect(await confirmPut(page, '/retry')).toBe(204);

      await waitForState(h, 'istio-system', 'stuck', 'FINISHED', 30_000, false);
      expect(h.sim.getDirective('istio-system', 'stuck')?.status?.error).toBe('');
      // 2 istiod pods once (the retry re-bounced nothing), then the gateway pod.
      expect(h.sim.deletedPods()).toHaveLength(3);
      for (const count of h.sim.deleteRequestsByUid().values()) expect(count).toBe(1);

      // Completed jobs offer nothing: retrying one would bounce its pods again.
      await page.goto(`${h.serve.url}/admin/queues/queue/bounce?status=completed`);
      const completed = page.locator('div[class^="card-"]', { has: page.getByText(failedJobId) });
      await completed.getByText(/ — generation 1, done, 2\/2 pods bounced/).waitFor();
      expect(await jobButtons(completed)).toEqual([]);
      expect(await statusActions(page)).toEqual([]);
      await page.close();
    });
  });

  describe('a directive waiting for its pods', () => {
    let h: Harness;
    beforeAll(async () => {
      // A re-check an hour away: the waiting selector job stays delayed while the test looks.
      h = await startHarness('dash-browser-delayed', {
        env: { ...DASHBOARD_ENV, POLL_INTERVAL_MS: '3600000', READINESS_TIMEOUT_SECONDS: '3600' },
      });
    });
    afterAll(async () => h?.close());

    const delayedJobs = async (): Promise<string[]> => {
      const response = await fetch(
        `${h.serve.url}/admin/queues/api/queues?activeQueue=bounce&status=delayed`,
        {
          headers: {
            authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
          },
        },
      );
      const body = (await response.json()) as { queues: { jobs: { id: string }[] }[] };
      return body.queues[0]!.jobs.map((job) => job.id);
    };

    it('an operator sees Promote, Pause and Resume, and each of them works', async () => {
      stuckMesh(h, 'waiting');
      const accepted = await h.post({ directive: { namespace: 'istio-system', name: 'waiting' } });
      const jobId: string = accepted.body.jobIds[0];
      await eventually('the selector job to be delayed', async () =>
        (await delayedJobs()).includes(jobId) ? true : undefined,
      );

      // Straight to the queue page: its own chunk's copy of the queue menu is the one in use.
      const page = await openPage(context, h);
      await page.goto(`${h.serve.url}/admin/queues/queue/bounce?status=delayed`);
      const card = page.locator('div[class^="card-"]', { has: page.getByText(jobId) });
      await card.getByText(/^istio-system\/waiting · selector 0 · /).waitFor();

      // Promote only: no Reschedule, Duplicate, Update data or Clean; Promote all, no Clean all.
      expect(await jobButtons(card)).toEqual(['promote']);
      expect(await statusActions(page)).toEqual(['Promote all']);

      expect(await queueMenu(page)).toEqual(['Pause']);
      await page.locator('button[aria-haspopup="menu"][class^="trigger-"]').first().click();
      await page.getByRole('menuitem', { name: 'Pause' }).click();
      expect(await confirmPut(page, '/bounce/pause')).toBe(200);
      await expect.poll(() => queueMenu(page)).toEqual(['Resume']);
      await page.locator('button[aria-haspopup="menu"][class^="trigger-"]').first().click();
      await page.getByRole('menuitem', { name: 'Resume' }).click();
      expect(await confirmPut(page, '/bounce/resume')).toBe(200);

      // The queue info dialog shows concurrency and rate limit without their edit pencils.
      await page.getByRole('button', { name: 'Queue info' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Global concurrency').waitFor();
      expect(
        await dialog.getByRole('button', { name: /^Set (concurrency|rate limit)$/ }).count(),
      ).toBe(0);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      await card.locator(`button:has(svg.${JOB_BUTTON_ICONS.promote})`).click();
      expect(await confirmPut(page, `/${encodeURIComponent(jobId)}/promote`)).toBe(204);
      await page.close();
    });
  });
});
