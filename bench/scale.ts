// Scale: many directives through one worker process (`node dist/cli.js work`, its peak RSS read
// from /proc), against the simulator and the api in this process; and one directive of many pods.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Stack } from './lib/stack.js';
import { directive, startStack, state, until } from './lib/stack.js';
import { round } from './lib/stats.js';

export interface ScaleResult {
  /** NODE_OPTIONS of the worker process ('' for Node's defaults). */
  nodeOptions: string;
  directives: number;
  selectors: number;
  podsPerSelector: number;
  readinessDelayMs: number;
  ingestMs: number;
  wallMs: number;
  idealMs: number;
  ratioToIdeal: number;
  peakRssMb: number;
  /** CPU the worker process used, and this process (simulator + api), during the run. */
  workerCpuMs: number;
  simAndApiCpuMs: number;
}

export interface BigDirective {
  pods: number;
  wallMs: number;
  peakRssMb: number;
  statusBytes: number;
}

/** CPU time (user + system) a process has used, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Peak resident set (VmHWM) of a process, in MB. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return round(kb / 1024, 1);
}

/** The heap cap the Helm chart gives a worker (worker.nodeOptions). */
export const CHART_WORKER_NODE_OPTIONS = '--max-old-space-size=192 --max-semi-space-size=4';

/** One worker process on the stack's Redis prefix and simulator, started with `nodeOptions`. */
function startWorkerProcess(stack: Stack, nodeOptions: string) {
  const child = spawn(
    process.execPath,
    [...nodeOptions.split(' ').filter(Boolean), 'dist/cli.js', 'work'],
    {
      env: { ...process.env, ...stack.env, WORKER_CONCURRENCY: '50' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return {
    pid: child.pid!,
    stop: async (): Promise<{ rss: number; cpu: number }> => {
      const rss = peakRssMb(child.pid!);
      const cpu = cpuMs(child.pid!);
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

/** N directives x 3 selectors x 10 pods (StatefulSet-style workloads), readiness 500 ms. */
export async function scaleMany(directives: number, nodeOptions: string): Promise<ScaleResult> {
  const stack = await startStack('scale', { worker: false });
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
    const worker = startWorkerProcess(stack, nodeOptions);
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
    const idealMs = SELECTORS * DELAY_MS + ingestMs;
    return {
      nodeOptions,
      directives,
      selectors: SELECTORS,
      podsPerSelector: PODS,
      readinessDelayMs: DELAY_MS,
      ingestMs,
      wallMs,
      idealMs,
      ratioToIdeal: round(wallMs / idealMs, 2),
      peakRssMb: used.rss,
      workerCpuMs: Math.round(used.cpu),
      simAndApiCpuMs: Math.round((cpu.user + cpu.system) / 1000),
    };
  } finally {
    await stack.close();
  }
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
    const worker = startWorkerProcess(stack, nodeOptions);
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
