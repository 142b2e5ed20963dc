import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { demoMesh, type Simulator } from '../sim/index.js';
import { startSimStack } from '../stack/sim-stack.js';
import { DemoClock } from './clock.js';
import { demoRedis } from './private-redis.js';
import { ProgressPrinter, type Print } from './progress.js';
import { readableLog } from './readable-log.js';

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
  const clock = new DemoClock();
  const redis = await demoRedis(env.REDIS_URL, print);
  try {
    return await runOnRedis(env, redis.url, print, clock);
  } finally {
    await redis.stop();
  }
}

async function runOnRedis(
  env: Record<string, string | undefined>,
  redisUrl: string | undefined,
  print: Print,
  clock: DemoClock,
): Promise<number> {
  // The demo's queue prefix is its own: the stack leaves nothing of it behind in a shared Redis.
  const stack = await startSimStack({
    prefix: `pod-bouncer-demo-${randomBytes(4).toString('hex')}`,
    // Log lines are printed as sentences on the demo's clock, not as JSON.
    logDestination: readableLog(clock, print),
    env: {
      REDIS_URL: redisUrl,
      LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
      // The demo mesh's own namespaces: nothing else in the simulated cluster is touched.
      ALLOWED_NAMESPACES: env.ALLOWED_NAMESPACES ?? 'istio-system,bookinfo',
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
    print(`  → ${describeAnswer(answer)}\n`);
    if (answer.status !== 202) return 1;
    const finished = await follow(
      new ProgressPrinter(kube, serve.queue, print, clock),
      ref,
      answer.body.jobIds as string[],
    );
    print(`\nMesh pods after the rotation:`);
    describeMesh(sim, print);
    print(`\n${finished ? 'FINISHED' : 'did not finish'}: ${bouncedSummary(sim)}.`);
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

/** "7 pod(s) evicted", "2 pod(s) evicted, 1 deleted": how the run's pods went, as the API saw it. */
function bouncedSummary(sim: Simulator): string {
  const evictions = new Set(
    sim
      .requests()
      .filter((request) => request.method === 'POST' && request.subresource === 'eviction')
      .map((request) => request.path.replace(/\/eviction$/, '')),
  );
  const gone = sim.deletedPods();
  const evicted = gone.filter((pod) =>
    evictions.has(`/api/v1/namespaces/${pod.namespace}/pods/${pod.name}`),
  ).length;
  const deleted = gone.length - evicted;
  if (deleted === 0) return `${evicted} pod(s) evicted`;
  if (evicted === 0) return `${deleted} pod(s) deleted`;
  return `${evicted} pod(s) evicted, ${deleted} deleted`;
}

/** The 202 in words: which run, and its selector jobs (`<uid>.g<generation>.r<runKey>.s<index>`). */
function describeAnswer(answer: { status: number; body: Record<string, unknown> }): string {
  const { generation, jobIds, message } = answer.body;
  if (answer.status !== 202 || !Array.isArray(jobIds)) {
    return `${answer.status}: ${typeof message === 'string' ? message : 'refused'}`;
  }
  const first = String(jobIds[0]);
  return `202 accepted: generation ${String(generation)}, ${jobIds.length} selector job(s), ${first} to ${first.replace(/\.s0$/, `.s${jobIds.length - 1}`)}`;
}
