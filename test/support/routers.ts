import { Redis } from 'ioredis';
import { REDIS_URL } from './redis.js';
import { TOKEN, eventually, type Harness } from './harness.js';

/**
 * Every Redis key under the harness's prefix: proves a request wrote nothing. The worker's
 * stalled-jobs check key comes and goes on its own timer, so it is left out.
 */
export async function keysUnder(prefix: string): Promise<string[]> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      // A credential's rate count (its requests in the last 60 s) is written for every request.
      keys.push(
        ...found.filter((key) => !key.endsWith(':stalled-check') && !key.includes(':bounce:rate:')),
      );
    } while (cursor !== '0');
    return keys.sort();
  } finally {
    redis.disconnect();
  }
}

/** POST /v1/events with a raw body and exactly these headers (plus the test token). */
export async function postRaw(
  h: Harness,
  body: string,
  headers: Record<string, string>,
  query = '',
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${h.serve.url}/v1/events${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, ...headers },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : undefined,
    headers: response.headers,
  };
}

/** A three-replica istiod as the sample events below refer to. */
export function addIstiod(h: Harness, name = 'istiod', replicas = 2): void {
  h.sim.addWorkload({
    namespace: 'istio-system',
    name,
    kind: 'ReplicaSet',
    labels: { app: name },
    replicas,
    readinessDelayMs: 50,
  });
}

/** Waits until no job is pending or running, so that a Redis snapshot is not racing a worker. */
export async function queueSettled(h: Harness): Promise<void> {
  await eventually('the queue to settle', async () => {
    const counts = await h.serve.queue.getJobCounts(
      'active',
      'waiting',
      'delayed',
      'prioritized',
      'waiting-children',
    );
    return Object.values(counts).every((count) => count === 0) ? true : undefined;
  });
}

/**
 * Calls every directive route (GET, retry, pause, resume, abort) of namespace/name as `token`,
 * one after the other: their answers, and the requests the API server served meanwhile.
 */
export async function callDirectiveRoutes(
  h: Harness,
  namespace: string,
  name: string,
  token: string,
) {
  const from = h.sim.requests().length;
  const routes: Array<[string, string]> = [
    ['GET', ''],
    ['POST', '/retry'],
    ['POST', '/pause'],
    ['POST', '/resume'],
    ['POST', '/abort'],
  ];
  const answers: Array<{ route: string; status: number; body: any }> = [];
  for (const [method, suffix] of routes) {
    const response = await fetch(`${h.serve.url}/v1/directives/${namespace}/${name}${suffix}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
    answers.push({
      route: `${method} ${suffix}`,
      status: response.status,
      body: await response.json(),
    });
  }
  return { answers, served: h.sim.requests().slice(from) };
}
