/** Where the dashboard is mounted; apart from dashboard.ts so that naming it loads no bull-board. */
export const DASHBOARD_PATH = '/admin/queues';
