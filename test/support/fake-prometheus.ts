import { createServer, type IncomingHttpHeaders } from 'node:http';

import { freePort } from './redis-server.js';

/**
 * A tiny Prometheus HTTP API the test controls: /api/v1/alerts answers the alerts it is told are
 * firing, /api/v1/query one sample of the value it is told (none when undefined). It counts the
 * requests per path and keeps their headers, so a test can see what pod-bouncer asked and sent.
 */
export interface FakePrometheus {
  url: string;
  firing: Set<string>;
  /** The one sample every query answers (a string: sent as it is); undefined: no sample. */
  value: number | string | undefined;
  /** Requests seen per path (`/api/v1/alerts`, `/api/v1/query`). */
  counts(): Record<string, number>;
  /** The headers of every request, oldest first. */
  headers: IncomingHttpHeaders[];
  reset(): void;
  close(): Promise<void>;
}

export async function startFakePrometheus(): Promise<FakePrometheus> {
  const counts = new Map<string, number>();
  const fake: Omit<FakePrometheus, 'url' | 'close'> = {
    firing: new Set(),
    value: undefined,
    headers: [],
    counts: () => Object.fromEntries(counts),
    reset() {
      counts.clear();
      fake.headers.length = 0;
    },
  };
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    fake.headers.push(request.headers);
    const now = Date.now() / 1000;
    const data =
      path === '/api/v1/alerts'
        ? {
            alerts: [...fake.firing].map((alertname) => ({
              labels: { alertname },
              state: 'firing',
            })),
          }
        : {
            resultType: 'vector',
            result:
              fake.value === undefined ? [] : [{ metric: {}, value: [now, String(fake.value)] }],
          };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: 'success', data }));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
