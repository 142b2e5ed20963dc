// API economy: pod-bouncer's own requests per bounced pod and per selector, from the simulator's
// request log, with the watch caches warm. Watch streams and the informers' namespace-wide LISTs
// are counted apart (`informer`): they are per process and namespace, not per directive.
import type { RequestLogEntry } from '../src/sim/index.js';
import { directive, startStack, until, state, type Stack } from './lib/stack.js';
import { round } from './lib/stats.js';

export interface EconomyRun {
  pods: number;
  selectors: number;
  readinessDelayMs: number;
  requests: number;
  deletes: number;
  informer: number;
  perPod: number;
  /** Requests other than DELETE, by method and resource. */
  others: Record<string, number>;
}

export interface EconomyResult {
  /** Marginal requests per extra pod (slope over the sizes, worst delay). */
  perPod: number;
  /** Marginal requests per extra selector (1 vs 2 selectors, same pods). */
  perSelector: number;
  /** What a directive costs whatever its size: the PENDING and FINISHED transitions. */
  perDirective: number;
  /** All in, per selector, for the 2-selector directives: (requests - perPod x pods) / 2. */
  perSelectorAllIn: number;
  runs: EconomyRun[];
  /** The same directive with no watch caches in the worker: a GET per run, a LIST per re-check. */
  baseline: { perPod: number; runs: EconomyRun[] };
}

const SELECTORS = 2;

function isInformer(r: RequestLogEntry): boolean {
  return (
    r.watch || (r.method === 'GET' && r.name === undefined && !r.query.includes('labelSelector'))
  );
}

async function runOne(
  stack: Stack,
  pods: number,
  delayMs: number,
  count = SELECTORS,
): Promise<EconomyRun> {
  const { sim } = stack;
  const id = `p${pods}-d${delayMs}-s${count}`;
  const selectors = Array.from({ length: count }, (_, index) => {
    const app = `${id}-${index}`;
    const namespace = `eco-${index}`;
    sim.addWorkload({
      namespace,
      name: app,
      kind: 'ReplicaSet',
      labels: { app },
      replicas: pods / count,
      readinessDelayMs: delayMs,
    });
    return { namespace, labels: { app }, waitForReplicas: pods / count };
  });
  sim.applyDirective(directive('eco-dirs', id, selectors));
  // Let the watches of the api and the worker see the new directive, as they would in steady state.
  await new Promise((resolve) => setTimeout(resolve, 100));
  sim.resetRequests();
  const answer = await stack.post({ directive: { namespace: 'eco-dirs', name: id } });
  if (answer.status !== 202) throw new Error(`ingest answered ${answer.status}`);
  await until(`${id} FINISHED`, () => state(sim, 'eco-dirs', id) === 'FINISHED');
  await until(`${id}'s Finished Event`, () => finishedEvent(stack, id));
  const all = sim.requests();
  const own = all.filter((r) => !isInformer(r));
  return {
    pods,
    selectors: count,
    readinessDelayMs: delayMs,
    requests: own.length,
    deletes: own.filter((r) => r.method === 'DELETE').length,
    informer: all.length - own.length,
    perPod: round(own.length / pods, 3),
    others: breakdown(own.filter((r) => r.method !== 'DELETE')),
  };
}

/** `baselineDelays`: the readiness delays of the no-watch baseline (default: `delays`). */
export async function apiEconomy(
  sizes: number[],
  delays: number[],
  baselineDelays = delays,
): Promise<EconomyResult> {
  const stack = await startStack('economy', { env: { POLL_INTERVAL_MS: '1000' } });
  try {
    await runOne(stack, 2, 0); // warm-up: starts the api's and the worker's watches
    const runs: EconomyRun[] = [];
    for (const delay of delays) {
      for (const pods of sizes) runs.push(await runOne(stack, pods, delay));
    }
    const smallest = Math.min(...sizes);
    const largest = Math.max(...sizes);
    const single = await runOne(stack, smallest, delays[0]!, 1);
    const pair = runs.find((r) => r.pods === smallest && r.readinessDelayMs === delays[0])!;
    const slopes = delays.map((delay) => {
      const at = (pods: number) =>
        runs.find((r) => r.pods === pods && r.readinessDelayMs === delay)!.requests;
      return (at(largest) - at(smallest)) / (largest - smallest);
    });
    const perPod = Math.max(...slopes);
    const perSelector = pair.requests - single.requests;
    const perDirective = single.requests - perPod * single.pods - perSelector;
    const allIn = Math.max(...runs.map((r) => (r.requests - perPod * r.pods) / r.selectors));
    return {
      perPod: round(perPod, 3),
      perSelector: round(perSelector, 2),
      perDirective: round(perDirective, 2),
      perSelectorAllIn: round(allIn, 2),
      runs: [...runs, single],
      baseline: await baseline(Math.max(...sizes.filter((size) => size <= 100)), baselineDelays),
    };
  } finally {
    await stack.close();
  }
}

async function baseline(pods: number, delays: number[]): Promise<EconomyResult['baseline']> {
  const stack = await startStack('economy-base', {
    mode: 'polling',
    env: { POLL_INTERVAL_MS: '1000' },
  });
  try {
    await runOne(stack, 2, 0);
    const runs: EconomyRun[] = [];
    for (const delay of delays) runs.push(await runOne(stack, pods, delay));
    return { perPod: Math.max(...runs.map((run) => run.perPod)), runs };
  } finally {
    await stack.close();
  }
}

function breakdown(requests: RequestLogEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) {
    const key = `${r.method} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function finishedEvent(stack: Stack, name: string): boolean {
  return stack.sim
    .events()
    .some(
      (event: any) =>
        event.reason === 'Finished' &&
        (event.involvedObject?.name ?? event.regarding?.name) === name,
    );
}
