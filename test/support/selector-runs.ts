import { directive, TOKEN, eventually, type Harness } from './harness.js';

/** The dashboard's login in the tests that retry a job there. */
export const DASHBOARD = { DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'dashboard-password-0123' };

/** A ReplicaSet per app in `namespace`, labelled app=<its name>, shaped by `shape`. */
export function addApps(
  h: Harness,
  namespace: string,
  apps: string[],
  shape: (app: string) => { replicas: number; readinessDelayMs: number | null },
): void {
  for (const app of apps) {
    h.sim.addWorkload({ namespace, name: app, kind: 'ReplicaSet', labels: { app }, ...shape(app) });
  }
}

/** A directive with these selectors, at most `limit` of them in progress at once. */
export function concurrentDirective(
  namespace: string,
  name: string,
  selectors: object[],
  limit: number,
) {
  const manifest = directive(namespace, name, selectors);
  (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = limit;
  return manifest;
}

/** The jobs of the directive's latest run, as its route lists them. */
export async function runJobs(h: Harness, namespace: string, name: string) {
  return (await h.get(`/v1/directives/${namespace}/${name}`)).body.jobs as {
    jobId: string;
    state: string;
  }[];
}

/** Waits until every job of the run is in one of `over` (by default failed or completed). */
export async function waitForRunOver(
  h: Harness,
  namespace: string,
  name: string,
  over = ['failed', 'completed'],
) {
  return eventually('every job of the run over', async () => {
    const jobs = await runJobs(h, namespace, name);
    return jobs.every((job) => over.includes(job.state)) ? jobs : undefined;
  });
}

/** The retry route, as the static token. */
export function retryRun(h: Harness, namespace: string, name: string): Promise<Response> {
  return fetch(`${h.serve.url}/v1/directives/${namespace}/${name}/retry`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
}

/** The dashboard's retry of one job (bull-board's API, logged in as DASHBOARD). */
export function dashboardRetry(h: Harness, jobId: string): Promise<Response> {
  return fetch(`${h.serve.url}/admin/queues/api/queues/bounce/${encodeURIComponent(jobId)}/retry`, {
    method: 'PUT',
    headers: { authorization: dashboardLogin() },
  });
}

/** The Basic authorization of DASHBOARD. */
export function dashboardLogin(): string {
  const { DASHBOARD_USER: user, DASHBOARD_PASSWORD: password } = DASHBOARD;
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
