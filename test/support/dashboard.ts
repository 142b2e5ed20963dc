import type { Harness } from './harness.js';

export const DASHBOARD_USER = 'ops';
export const DASHBOARD_PASSWORD = 'dashboard-password-0123';
/** The settings that mount the dashboard with that login. */
export const DASHBOARD = { DASHBOARD_USER, DASHBOARD_PASSWORD };

/** A Basic authorization header value. */
export function basic(user = DASHBOARD_USER, password = DASHBOARD_PASSWORD): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** The dashboard's retry of one job (bull-board's API, logged in). */
export function dashboardRetry(h: Harness, jobId: string): Promise<Response> {
  return fetch(`${h.serve.url}/admin/queues/api/queues/bounce/${encodeURIComponent(jobId)}/retry`, {
    method: 'PUT',
    headers: { authorization: basic() },
  });
}
