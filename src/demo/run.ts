import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DirectiveManifest } from '../directive/types.js';
import { demoMesh, demoMeshWorkloads, meshCertsDirective, type Simulator } from '../sim/index.js';
import { startSimStack } from '../stack/sim-stack.js';
import { DemoClock } from './clock.js';
import { demoRedis } from './private-redis.js';
import { ProgressPrinter, type Print } from './progress.js';
import { readableLog } from './readable-log.js';
import { byApply, byEvent, type DirectiveRef } from './start-run.js';

export interface DemoOptions {
  /** Controller mode: the directive is applied, not announced by an event (WATCH_DIRECTIVES). */
  watchDirectives?: boolean;
}

const DEMO_TIMEOUT_MS = 120_000;

function describeMesh(sim: Simulator, print: Print): void {
  for (const namespace of ['istio-system', 'bookinfo']) {
    const names = sim.listPods(namespace).map((pod) => pod.metadata.name);
    print(`  ${namespace}: ${names.join(', ')}`);
  }
}

/**
 * `pod-bouncer demo`: the whole flow on an embedded simulated cluster. Starts the simulator with a
 * small mesh, the API and the worker (on a private queue prefix), posts a cert-issued event and
 * prints each step until the directive is FINISHED. With `watchDirectives`, the workers watch
 * directives and the demo applies the directive instead of posting an event. Returns the exit code.
 */
export async function runDemo(
  env: Record<string, string | undefined>,
  options: DemoOptions = {},
): Promise<number> {
  const print: Print = (line) => process.stdout.write(`${line}\n`);
  const clock = new DemoClock();
  const redis = await demoRedis(env.REDIS_URL, print);
  try {
    return await runOnRedis(env, redis.url, {
      print,
      clock,
      watch: options.watchDirectives === true,
    });
  } finally {
    await redis.stop();
  }
}

async function runOnRedis(
  env: Record<string, string | undefined>,
  redisUrl: string | undefined,
  { print, clock, watch }: { print: Print; clock: DemoClock; watch: boolean },
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
      ...(watch ? { WATCH_DIRECTIVES: 'true' } : {}),
    },
  });
  const { sim, kube, serve } = stack;
  const mesh = { readinessDelayMs: 1500, configMapSyncDelayMs: 8000 };
  const manifest = meshCertsDirective() as DirectiveManifest;
  const ref: DirectiveRef = {
    namespace: manifest.metadata.namespace,
    name: manifest.metadata.name,
  };
  if (watch) demoMeshWorkloads(sim, mesh);
  else demoMesh(sim, mesh);
  print(`Simulated cluster at ${sim.url}. Mesh pods before the rotation:`);
  describeMesh(sim, print);
  try {
    const start = watch
      ? byApply(serve.url, kube, manifest, print)
      : byEvent(serve.url, ref, print);
    const jobIds = await start();
    if (jobIds === undefined) return 1;
    const finished = await follow(
      new ProgressPrinter(kube, serve.queue, print, clock),
      ref,
      jobIds,
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
