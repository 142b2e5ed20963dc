// Wake-up latency: from the simulator marking a replacement Ready to the first API request of the
// next step (the next selector's LIST), per selector; the watch path and the polling baseline.
import { directive, startStack, until, state } from './lib/stack.js';
import { median, percentile } from './lib/stats.js';

export interface WakeupResult {
  medianMs: number;
  p99Ms: number;
  samples: number;
}

const NAMESPACES = 10;
const DIRECTIVES_NS = 'wk-dirs';
/**
 * Between two Ready marks. The simulator, the api and the worker share this process, and each
 * wake-up sets off a selector (about 7 requests, client and server side here): the gap keeps that
 * event loop from saturating, so latency is measured one wake-up at a time, not under a flood.
 */
const GAP_MS = 150;

export async function wakeupLatency(
  mode: 'watch' | 'polling',
  selectors: number,
): Promise<WakeupResult> {
  const stack = await startStack(`wakeup-${mode}`, {
    mode,
    env: { POLL_INTERVAL_MS: '1000', WORKER_CONCURRENCY: '50' },
  });
  const { sim } = stack;
  try {
    const ns = (i: number) => `wk-${i % NAMESPACES}`;
    for (let i = 0; i < selectors; i++) {
      for (const [prefix, delay] of [
        ['a', null],
        ['b', 0],
      ] as const) {
        sim.addWorkload({
          namespace: ns(i),
          name: `${prefix}-${i}`,
          kind: 'ReplicaSet',
          labels: { app: `${prefix}-${i}` },
          replicas: 1,
          readinessDelayMs: delay,
        });
      }
      sim.applyDirective(
        directive(DIRECTIVES_NS, `d-${i}`, [
          { namespace: ns(i), labels: { app: `a-${i}` }, waitForReplicas: 1 },
          { namespace: ns(i), labels: { app: `b-${i}` }, waitForReplicas: 0 },
        ]),
      );
    }
    for (let i = 0; i < selectors; i += 10) {
      const batch = Array.from({ length: Math.min(10, selectors - i) }, (_, k) =>
        stack.post({ directive: { namespace: DIRECTIVES_NS, name: `d-${i + k}` } }),
      );
      const bad = (await Promise.all(batch)).find((response) => response.status !== 202);
      if (bad) throw new Error(`ingest answered ${bad.status}`);
    }
    // Every first selector has bounced its pod and waits (replacements never turn Ready yet).
    await until('every first selector to bounce', () => sim.deletedPods().length >= selectors);
    if (mode === 'watch') await until('every job parked', () => stack.wakeups!.size >= selectors);
    else await new Promise((resolve) => setTimeout(resolve, 1500));

    const readyAt: number[] = [];
    for (let i = 0; i < selectors; i++) {
      readyAt[i] = Date.now();
      sim.setReadinessDelay(ns(i), `a-${i}`, 0);
      await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    }
    await until('every directive FINISHED', () =>
      Array.from({ length: selectors }, (_, i) => i).every(
        (i) => state(sim, DIRECTIVES_NS, `d-${i}`) === 'FINISHED',
      ),
    );
    const firstList = new Map<string, number>();
    for (const request of sim.requests()) {
      if (request.resource !== 'pods' || request.method !== 'GET') continue;
      const app = new URLSearchParams(request.query).get('labelSelector');
      if (app?.startsWith('app=b-') && !firstList.has(app)) firstList.set(app, request.at);
    }
    const latencies = readyAt.map((at, i) => {
      const next = firstList.get(`app=b-${i}`);
      if (next === undefined) throw new Error(`no next-step request for selector ${i}`);
      return next - at;
    });
    return {
      medianMs: median(latencies),
      p99Ms: percentile(latencies, 99),
      samples: latencies.length,
    };
  } finally {
    await stack.close();
  }
}
