import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UI_EDITS } from '../../src/ingress/dashboard-ui-edits.js';
import { startHarness, waitForState, type Harness } from '../support/harness.js';
import { DASHBOARD, DASHBOARD_PASSWORD, DASHBOARD_USER, basic } from '../support/dashboard.js';
import { onePodDirective } from '../support/workloads.js';

describe('the dashboard without credentials configured', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('dash-off', { worker: false });
  });
  afterAll(async () => h.close());

  it('is not mounted', async () => {
    for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
      const response = await fetch(`${h.serve.url}${path}`, {
        headers: { authorization: basic() },
      });
      expect(response.status, path).toBe(404);
    }
  });
});

describe('the dashboard at /admin/queues', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('dash-on', {
      env: DASHBOARD,
    });
  });
  afterAll(async () => h.close());

  const get = (path: string, authorization?: string) =>
    fetch(`${h.serve.url}${path}`, authorization ? { headers: { authorization } } : {});

  it('asks for basic auth on every route, static assets included', async () => {
    const page = await get('/admin/queues', basic());
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();

    const paths = ['/admin/queues', `/admin/queues/${script}`, '/admin/queues/api/queues'];
    for (const path of paths) {
      for (const authorization of [
        undefined,
        basic(DASHBOARD_USER, 'wrong'),
        basic('someone', DASHBOARD_PASSWORD),
        basic(DASHBOARD_USER, ''),
        'Bearer test-token-0123456789',
        'Basic !!!',
      ]) {
        const refused = await get(path, authorization);
        expect(refused.status, `${path} with ${authorization}`).toBe(401);
        expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
        expect(await refused.json()).toMatchObject({ error: 'unauthorized' });
      }
      expect((await get(path, basic())).status, path).toBe(200);
    }
  });

  it('serves its edited scripts with their own length and ETag, and answers a revalidation with 304', async () => {
    const auth = basic();
    const plain = await get('/admin/queues/static/js/async/87.be2aba7d11.js', auth);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('etag')).toMatch(/^W\/"/);
    for (const file of new Set(UI_EDITS.map((edit) => edit.file))) {
      const path = `/admin/queues/static/${file}`;
      expect((await get(path)).status, path).toBe(401);
      const response = await get(path, auth);
      expect(response.status, path).toBe(200);
      const body = Buffer.from(await response.arrayBuffer());
      for (const edit of UI_EDITS.filter((candidate) => candidate.file === file)) {
        expect(body.toString('utf8'), edit.hides).not.toContain(edit.needle);
      }
      expect(Number(response.headers.get('content-length')), path).toBe(body.length);
      const etag = response.headers.get('etag');
      expect(etag, path).toBe(`"${createHash('sha256').update(body).digest('base64url')}"`);
      // As bull-board's other files are served, so a browser treats them alike.
      for (const header of ['content-type', 'cache-control']) {
        expect(response.headers.get(header), `${path} ${header}`).toBe(plain.headers.get(header));
      }

      const head = await fetch(`${h.serve.url}${path}`, {
        method: 'HEAD',
        headers: { authorization: auth },
      });
      expect(head.headers.get('content-length'), path).toBe(String(body.length));
      expect(head.headers.get('etag'), path).toBe(etag);
      const fresh = await fetch(`${h.serve.url}${path}`, {
        headers: { authorization: auth, 'if-none-match': `W/"0-0", ${etag!}` },
      });
      expect(fresh.status, path).toBe(304);
      expect(await fresh.text()).toBe('');
      // A copy cached before the edits (bull-board's own weak ETag) is sent the edited one.
      const stale = await fetch(`${h.serve.url}${path}`, {
        headers: { authorization: auth, 'if-none-match': plain.headers.get('etag')! },
      });
      expect(stale.status, path).toBe(200);
      expect(Buffer.from(await stale.arrayBuffer()).equals(body), path).toBe(true);
    }
  });

  it('refuses writes other than retry, promote, pause and resume', async () => {
    const auth = { authorization: basic(), 'content-type': 'application/json' };
    const refused: Array<[string, string, string?]> = [
      ['POST', '/admin/queues/api/queues/bounce/add', JSON.stringify({ name: 'x', data: {} })],
      [
        'PATCH',
        '/admin/queues/api/queues/bounce/some-job/update-data',
        JSON.stringify({ data: {} }),
      ],
      ['PUT', '/admin/queues/api/queues/bounce/empty'],
      ['PUT', '/admin/queues/api/queues/bounce/obliterate'],
      ['PUT', '/admin/queues/api/queues/bounce/clean/completed'],
      ['PUT', '/admin/queues/api/queues/bounce/some-job/clean'],
    ];
    for (const [method, path, body] of refused) {
      const response = await fetch(`${h.serve.url}${path}`, { method, headers: auth, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(await response.json()).toMatchObject({ error: 'forbidden' });
    }
    const retryNothing = await fetch(`${h.serve.url}/admin/queues/api/queues/bounce/retry/failed`, {
      method: 'PUT',
      headers: { authorization: basic() },
    });
    expect(retryNothing.status).not.toBe(403);
  });

  it('shows the selector jobs by name, with their data and log lines', async () => {
    onePodDirective(h, 'istio-system', 'shown', { selector: { waitForReplicas: 1 } });
    const accepted = await h.post({ directive: { namespace: 'istio-system', name: 'shown' } });
    await waitForState(h, 'istio-system', 'shown', 'FINISHED');

    const response = await get(
      '/admin/queues/api/queues?activeQueue=bounce&status=latest',
      basic(),
    );
    const body = (await response.json()) as any;
    const queue = body.queues.find((candidate: any) => candidate.name === 'bounce');
    expect(queue).toBeDefined();
    const job = queue.jobs.find((candidate: any) => candidate.id === accepted.body.jobIds[0]);
    expect(job.name).toBe(
      'istio-system/shown · selector 0 · istio-system app=istiod — generation 1, done, 1/1 pods bounced',
    );
    // Retry is offered for failed jobs only: a completed selector retried would bounce again.
    expect(queue).toMatchObject({
      readOnlyMode: false,
      allowRetries: true,
      allowCompletedRetries: false,
    });
    expect(job.data).toMatchObject({
      selector: { namespace: 'istio-system' },
      progress: { step: 'done' },
    });

    const logs = await get(
      `/admin/queues/api/queues/bounce/${encodeURIComponent(job.id)}/logs`,
      basic(),
    );
    expect(logs.status).toBe(200);
    expect(JSON.stringify(await logs.json())).toMatch(/select: chose 1 pod/);
  });
});
