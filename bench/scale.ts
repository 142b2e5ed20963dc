// Scale: many directives through one worker process (`node dist/cli.js work`, its CPU and peak RSS
// read from /proc), against the simulator and the api in this process; and one directive of many
// pods.
//
// The directives keep the default maxUnavailable (DEFAULT_MAX_UNAVAILABLE, 25 %): that is what
// a cluster runs, and each gate between batches is a wait the worker must wake up for. So the
// ideal is computed from the batch plan: a selector of 10 StatefulSet pods goes in 5 batches of
// 2, each waiting 500 ms for the replacements of the one before (the last for waitForReplicas),
// so ideal = 3 selectors x 5 batches x 500 ms + the time to post the events. The all-at-once
// ideal (3 x 500 ms + posting, what the figure meant before batches) is printed beside it.
import { Queue } from 'bullmq';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseMaxUnavailable, resolveMaxUnavailable } from '../src/directive/max-unavailable.js';
import { QUEUE_NAME } from '../src/queue/names.js';
import { planBatches } from '../src/workflow/batches.js';
import type { Stack } from './lib/stack.js';
import { directive, startStack, state, until } from './lib/stack.js';
import { round } from './lib/stats.js';
import { cpuMs, peakRssMb } from './lib/proc.js';

export interface ScaleResult {
  /** NODE_OPTIONS of the worker process ('' for Node's defaults). */
  nodeOptions: string;
  directives: number;
  selectors: number;
  podsPerSelector: number;
  batchesPerSelector: number;
  readinessDelayMs: number;
  /** KUBE_QPS / KUBE_BURST of the worker (and the api) in this run. */
  kubeQps: number;
  kubeBurst: number;
  ingestMs: number;
  wallMs: number;
  /** selectors x batches x readiness + ingest. */
  idealMs: number;
  ratioToIdeal: number;
  /** selectors x readiness + ingest: every pod of a selector at once, as before batches. */
  idealAllAtOnceMs: number;
  ratioToAllAtOnce: number;
  peakRssMb: number;
  /** CPU the worker process used to start (loading modules, connecting), before the run. */
  workerStartCpuMs: number;
  /** CPU the worker process used, and this process (simulator + api), during the run. */
  workerCpuMs: number;
  /** workerCpuMs per bounced pod: the run's CPU, its start apart. */
  cpuPerPodMs: number;
  simAndApiCpuMs: number;
  /** Requests the worker sent (the simulator's log, by kubeconfig user), watch streams apart. */
  workerRequests: number;
  workerWatches: number;
}

export interface QpsBound {
  qps: number;
  burst: number;
  run: ScaleResult;
  /** How long the worker's requests take at KUBE_QPS: requests / qps. */
  boundMs: number;
  /** wall / bound: 1.0 is the rate limit's own pace. */
  ratio: number;
}

export interface BigDirective {
  pods: number;
  wallMs: number;
  peakRssMb: number;
  statusBytes: number;
}

/** The heap cap the Helm chart gives a worker (worker.nodeOptions). */
export const CHART_WORKER_NODE_OPTIONS = '--max-old-space-size=192 --max-semi-space-size=8';

/**
 * The node flags the image starts pod-bouncer with: those of the Dockerfile's ENTRYPOINT
 * (`["node", <flags>, "dist/cli.js"]`) and of an `ENV NODE_OPTIONS`, so that the benchmark
 * measures what `docker run` runs.
 */
export function imageNodeOptions(dockerfile = 'Dockerfile'): string {
  const text = readFileSync(dockerfile, 'utf8');
  const entrypoint = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(text)?.[1];
  const argv = entrypoint === undefined ? [] : (JSON.parse(entrypoint) as string[]);
  const flags = argv.slice(1, Math.max(1, argv.indexOf('dist/cli.js')));
  const env = /^ENV\s+NODE_OPTIONS=("[^"]*"|\S+)/m.exec(text)?.[1]?.replace(/^"|"$/g, '');
  return [...flags, ...(env === undefined ? [] : [env])].join(' ');
}

/**
 * The allocator settings of the image's environment (`ENV MALLOC_ARENA_MAX=…` in the Dockerfile),
 * which every container of it runs with, the chart's included: the worker process gets them too.
 */
export function imageAllocatorEnv(dockerfile = 'Dockerfile'): Record<string, string> {
  const text = readFileSync(dockerfile, 'utf8');
  const value = /^ENV\s+MALLOC_ARENA_MAX=("[^"]*"|\S+)/m.exec(text)?.[1]?.replace(/^"|"$/g, '');
  return value === undefined ? {} : { MALLOC_ARENA_MAX: value };
}

export const WORKER_USER = 'sim-worker';

/** Resolves once a BullMQ worker of the stack's queue is connected (its client name in Redis). */
async function workerConnected(stack: Stack): Promise<void> {
  const queue = new Queue(QUEUE_NAME, {
    connection: { url: stack.config.redisUrl },
    prefix: stack.config.queuePrefix,
  });
  try {
    const deadline = Date.now() + 60_000;
    while ((await queue.getWorkersCount()) === 0) {
      if (Date.now() > deadline) throw new Error('the worker process did not connect');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await queue.close();
  }
}

/**
 * One worker process on the stack's Redis prefix and simulator, started with `nodeOptions`;
 * resolves once it is connected, so that the run's clock and CPU leave its start-up out.
 */
export async function startWorkerProcess(stack: Stack, nodeOptions: string) {
  // Its own kubeconfig user, so the simulator's request log tells its requests from the api's.
  const kubeconfig = join(dirname(stack.kubeconfig), 'worker-kubeconfig');
  await stack.sim.writeKubeconfig(kubeconfig, WORKER_USER);
  const child = spawn(
    process.execPath,
    [...nodeOptions.split(' ').filter(Boolean), 'dist/cli.js', 'work'],
    {
      env: {
        ...process.env,
        ...imageAllocatorEnv(),
        ...stack.env,
        KUBECONFIG: kubeconfig,
        WORKER_CONCURRENCY: '50',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  await workerConnected(stack);
  const startCpu = cpuMs(child.pid!);
  return {
    pid: child.pid!,
    startCpu,
    /** Peak RSS over the whole life, CPU since it connected. */
    stop: async (): Promise<{ rss: number; cpu: number }> => {
      const rss = peakRssMb(child.pid!);
      const cpu = cpuMs(child.pid!) - startCpu;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      return { rss, cpu };
    },
  };
}

async function postAll(stack: Stack, namespace: string, names: string[]): Promise<void> {
  for (let i = 0; i < names.length; i += 50) {
    const answers = await Promise.all(
      names.slice(i, i + 50).map((name) => stack.post({ directive: { namespace, name } })),
    );
    const bad = answers.find((answer) => answer.status !== 202);
    if (bad) throw new Error(`ingest answered ${bad.status}: ${JSON.stringify(bad.body)}`);
  }
}

const SELECTORS = 3;
const PODS = 10;
const DELAY_MS = 500;
/** The stack's own limits: high enough never to be what a run waits for. */
const UNLIMITED = { qps: 100_000, burst: 100_000 };

/** Batches of a selector of `pods` StatefulSet pods at DEFAULT_MAX_UNAVAILABLE's default (25 %). */
function batchesPerSelector(pods: number): number {
  const limit = resolveMaxUnavailable(parseMaxUnavailable('25%')!, pods);
  const chosen = Array.from({ length: pods }, (_, i) => ({ name: `p-${i}`, uid: `u-${i}` }));
  return planBatches(chosen, limit).length;
}

/** N directives x 3 selectors x 10 pods (StatefulSet-style workloads), readiness 500 ms. */
export async function scaleMany(
  directives: number,
  nodeOptions: string,
  limits: { qps: number; burst: number } = UNLIMITED,
): Promise<ScaleResult> {
  const stack = await startStack('scale', {
    worker: false,
    env: { KUBE_QPS: String(limits.qps), KUBE_BURST: String(limits.burst) },
  });
  const { sim } = stack;
  try {
    const names: string[] = [];
    for (let d = 0; d < directives; d++) {
      const selectors = Array.from({ length: SELECTORS }, (_, k) => {
        const namespace = `sc-${d % 100}-${k}`;
        const app = `w-${d}-${k}`;
        sim.addWorkload({
          namespace,
          name: app,
          kind: 'StatefulSet',
          labels: { app },
          replicas: PODS,
          readinessDelayMs: DELAY_MS,
        });
        return { namespace, labels: { app }, waitForReplicas: PODS };
      });
      names.push(`d-${d}`);
      sim.applyDirective(directive('sc-dirs', `d-${d}`, selectors));
    }
    const worker = await startWorkerProcess(stack, nodeOptions);
    const started = Date.now();
    const cpuBefore = process.cpuUsage();
    await postAll(stack, 'sc-dirs', names);
    const ingestMs = Date.now() - started;
    await until(
      'every directive FINISHED',
      () => names.every((name) => state(sim, 'sc-dirs', name) === 'FINISHED'),
      1_800_000,
    );
    const wallMs = Date.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const used = await worker.stop();
    const sent = sim.requests().filter((request) => request.user === WORKER_USER);
    const watches = sent.filter((request) => request.watch).length;
    const batches = batchesPerSelector(PODS);
    const idealMs = SELECTORS * batches * DELAY_MS + ingestMs;
    const idealAllAtOnceMs = SELECTORS * DELAY_MS + ingestMs;
    const pods = directives * SELECTORS * PODS;
    return {
      nodeOptions,
      directives,
      selectors: SELECTORS,
      podsPerSelector: PODS,
      batchesPerSelector: batches,
      readinessDelayMs: DELAY_MS,
      kubeQps: limits.qps,
      kubeBurst: limits.burst,
      ingestMs,
      wallMs,
      idealMs,
      ratioToIdeal: round(wallMs / idealMs, 2),
      idealAllAtOnceMs,
      ratioToAllAtOnce: round(wallMs / idealAllAtOnceMs, 2),
      peakRssMb: used.rss,
      workerStartCpuMs: Math.round(worker.startCpu),
      workerCpuMs: Math.round(used.cpu),
      cpuPerPodMs: round(used.cpu / pods, 3),
      simAndApiCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      workerRequests: sent.length - watches,
      workerWatches: watches,
    };
  } finally {
    await stack.close();
  }
}

/**
 * The same directives with the worker (and the api) held to KUBE_QPS=200 and the default burst:
 * a worker that keeps up with the API budget finishes in about requests / QPS.
 */
export async function qpsBound(directives: number, nodeOptions: string): Promise<QpsBound> {
  const limits = { qps: 200, burst: 100 };
  const run = await scaleMany(directives, nodeOptions, limits);
  const boundMs = Math.round((run.workerRequests / limits.qps) * 1000);
  return { ...limits, run, boundMs, ratio: round(run.wallMs / boundMs, 2) };
}

/** One directive, one selector of `pods` pods (a StatefulSet), readiness 500 ms. */
export async function bigDirective(
  pods: number,
  nodeOptions = CHART_WORKER_NODE_OPTIONS,
): Promise<BigDirective> {
  const stack = await startStack(`big${pods}`, { worker: false });
  const { sim } = stack;
  try {
    const namespace = `big-${pods}`;
    sim.addWorkload({
      namespace,
      name: 'big',
      kind: 'StatefulSet',
      labels: { app: 'big' },
      replicas: pods,
      readinessDelayMs: DELAY_MS,
    });
    sim.applyDirective(
      directive(namespace, 'big', [{ namespace, labels: { app: 'big' }, waitForReplicas: pods }]),
    );
    const worker = await startWorkerProcess(stack, nodeOptions);
    const started = Date.now();
    await postAll(stack, namespace, ['big']);
    await until('FINISHED', () => state(sim, namespace, 'big') === 'FINISHED', 1_800_000);
    const wallMs = Date.now() - started;
    const { rss } = await worker.stop();
    const statusBytes = Buffer.byteLength(JSON.stringify(sim.getDirective(namespace, 'big')));
    return { pods, wallMs, peakRssMb: rss, statusBytes };
  } finally {
    await stack.close();
  }
}
