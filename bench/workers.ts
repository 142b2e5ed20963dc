// Throughput by worker count: the same batch of directives through 1, 2, 4 worker processes
// (`node dist/cli.js work`, as replicas run) on one Redis and one simulated cluster.
//
//   npm run bench:workers            (BENCH_WORKERS=1,2,4  BENCH_DIRECTIVES=40  BENCH_LATENCY_MS=200)
//
// Every API request is slowed by BENCH_LATENCY_MS, as a busy API server's round trip would be, and
// each worker runs BENCH_CONCURRENCY=2 jobs at a time: a replica's capacity is then its in-flight
// API calls, which is what adding replicas buys, and the figures do not depend on how many idle
// cores the machine has. The api and the simulator run in this process.
import { spawn, type ChildProcess } from 'node:child_process';
import { directive, startStack, state, until, type Stack } from './lib/stack.js';
import { line, round } from './lib/stats.js';

const COUNTS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
const DIRECTIVES = Number(process.env.BENCH_DIRECTIVES ?? 40);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 200);
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? '2';

function startWorkers(stack: Stack, count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['dist/cli.js', 'work'], {
      env: {
        ...process.env,
        ...stack.env,
        WORKER_CONCURRENCY: CONCURRENCY,
        POLL_INTERVAL_MS: '200',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
}

async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** Directives per second from the first event posted to the last directive FINISHED. */
async function run(workers: number): Promise<number> {
  const stack = await startStack(`workers${workers}`, { worker: false });
  const children = startWorkers(stack, workers);
  try {
    const names = Array.from({ length: DIRECTIVES }, (_, i) => `w${i}`);
    for (const ns of names) {
      stack.sim.addWorkload({
        namespace: ns,
        name: 'app',
        kind: 'ReplicaSet',
        labels: { app: 'app' },
        replicas: 2,
        readinessDelayMs: 100,
      });
      stack.sim.applyDirective(
        directive(ns, 'certs', [{ namespace: ns, labels: { app: 'app' }, waitForReplicas: 2 }]),
      );
    }
    const registered = async () => (await stack.serve.queue.getWorkersCount()) === workers;
    for (let deadline = Date.now() + 60_000; !(await registered());) {
      if (Date.now() > deadline) throw new Error(`${workers} workers did not start`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    stack.sim.setFaults({ latencyMs: LATENCY_MS });
    const started = performance.now();
    await Promise.all(
      names.map((ns) => stack.post({ directive: { namespace: ns, name: 'certs' } })),
    );
    await until('every directive FINISHED', () =>
      names.every((ns) => {
        const now = state(stack.sim, ns, 'certs');
        if (now === 'FAILED') throw new Error(`${ns}/certs FAILED`);
        return now === 'FINISHED';
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return DIRECTIVES / seconds;
  } finally {
    await stopWorkers(children);
    await stack.close();
  }
}

console.log(
  `workers bench: ${DIRECTIVES} one-selector directives of 2 pods, API latency ${LATENCY_MS} ms, ` +
    `WORKER_CONCURRENCY=${CONCURRENCY}`,
);
let baseline: number | undefined;
for (const workers of COUNTS) {
  const throughput = await run(workers);
  baseline ??= throughput;
  console.log(
    line(
      `${workers} worker process${workers === 1 ? '' : 'es'}`,
      throughput,
      'dir/s',
      `x${round(throughput / baseline)}`,
    ),
  );
}
process.exit(0);
