import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../config.js';
import { checkRedis } from '../preflight.js';
import { demoMesh, type Simulator } from '../sim/index.js';
import { startSimStack } from '../stack/sim-stack.js';
import { ProgressPrinter, type Print } from './progress.js';

const DEMO_TIMEOUT_MS = 120_000;

function describeMesh(sim: Simulator, print: Print): void {
  for (const namespace of ['istio-system', 'bookinfo']) {
    const names = sim.listPods(namespace).map((pod) => pod.metadata.name);
    print(`  ${namespace}: ${names.join(', ')}`);
  }
}

async function postEvent(
  url: string,
  body: object,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * `pod-bouncer demo`: the whole flow on an embedded simulated cluster. Starts the simulator with a
 * small mesh, the API and the worker (on a private queue prefix), posts a cert-issued event and
 * prints each step until the directive is FINISHED. Returns the exit code.
 */
export async function runDemo(env: Record<string, string | undefined>): Promise<number> {
  const print: Print = (line) => process.stdout.write(`${line}\n`);
  await checkRedis(
    loadConfig({ REDIS_URL: env.REDIS_URL }).redis,
    'start Redis with `docker compose up -d redis` or `redis-server --daemonize yes`, or set REDIS_URL',
  );
  // The demo's queue prefix is its own: the stack leaves nothing of it behind in a shared Redis.
  const stack = await startSimStack({
    prefix: `pod-bouncer-demo-${randomBytes(4).toString('hex')}`,
    env: {
      REDIS_URL: env.REDIS_URL,
      LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
      WEBHOOK_AUTH: 'none',
      HOST: '127.0.0.1',
      PORT: '0',
      POLL_INTERVAL_MS: '250',
      READINESS_TIMEOUT_SECONDS: '60',
      ROOT_CERT_SYNC_TIMEOUT_SECONDS: '60',
    },
  });
  const { sim, kube, serve } = stack;
  const directive = demoMesh(sim, { readinessDelayMs: 1500, configMapSyncDelayMs: 8000 }) as {
    metadata: { namespace: string; name: string };
  };
  print(`Simulated cluster at ${sim.url}. Mesh pods before the rotation:`);
  describeMesh(sim, print);
  try {
    const ref = { namespace: directive.metadata.namespace, name: directive.metadata.name };
    print(`\nPOST ${serve.url}/v1/events for directive ${ref.namespace}/${ref.name}`);
    const answer = await postEvent(serve.url, {
      directive: ref,
      issuedAt: new Date().toISOString(),
    });
    print(`  → ${answer.status} ${JSON.stringify(answer.body)}\n`);
    if (answer.status !== 202) return 1;
    const finished = await follow(
      new ProgressPrinter(kube, serve.queue, print),
      ref,
      answer.body.jobIds as string[],
    );
    print(`\nMesh pods after the rotation:`);
    describeMesh(sim, print);
    print(
      `\n${finished ? 'FINISHED' : 'did not finish'}: ${sim.deletedPods().length} pod(s) deleted.`,
    );
    return finished ? 0 : 1;
  } finally {
    await stack.close();
  }
}

async function follow(
  printer: ProgressPrinter,
  ref: { namespace: string; name: string },
  jobIds: string[],
): Promise<boolean> {
  const deadline = Date.now() + DEMO_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const directive = await printer.poll(ref, jobIds);
    const state = directive.status?.state;
    if (state === 'FINISHED') return true;
    if (state === 'FAILED') return false;
    await sleep(200);
  }
  return false;
}
