// `npm run bench [-- --quick]`: every benchmark against the simulator and the real Redis, each
// printing its figures and its ratio to a baseline measured in the same run; the figures go to
// bench/results/latest.json (flat dotted keys, plus the details of every run).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { apiEconomy } from './api-economy.js';
import { attackLatency } from './attack.js';
import { coldStart } from './cold-start.js';
import { ingestThroughput } from './ingest.js';
import {
  CHART_WORKER_NODE_OPTIONS,
  bigDirective,
  imageNodeOptions,
  qpsBound,
  scaleMany,
} from './scale.js';
import { line, round } from './lib/stats.js';
import { meshRun, watchModeCost } from './mesh.js';
import { wakeupLatency } from './wakeup.js';

const quick = process.argv.includes('--quick');
const plan = quick
  ? {
      wakeups: 50,
      sizes: [10, 100],
      delays: [500],
      baselineDelays: [500],
      ingestSeconds: 1,
      ingestRounds: 3,
      ingestDirectives: 50_000,
      directives: 100,
      qpsDirectives: 40,
      big: [100, 500],
      // The K = 1 baseline rotates one workload after another (about 2 s each): 20 here.
      mesh: { workloads: 100, baseline: 20 },
    }
  : {
      wakeups: 200,
      sizes: [10, 100, 1000],
      delays: [1000, 10_000],
      baselineDelays: [1000, 10_000],
      ingestSeconds: 5,
      ingestRounds: 3,
      ingestDirectives: 120_000,
      directives: 1000,
      qpsDirectives: 200,
      big: [100, 1000, 10_000],
      mesh: { workloads: 500, baseline: 100 },
    };

const figures: Record<string, number> = {};
const details: Record<string, unknown> = {};
const target = (ok: boolean, text: string) => `${ok ? 'meets' : 'MISSES'} ${text}`;

let sectionStarted = Date.now();

/** A section's title, after how long the one before took. */
function heading(text: string) {
  const now = Date.now();
  console.log(`  (${round((now - sectionStarted) / 1000, 0)} s)\n\n${text}`);
  sectionStarted = now;
}

async function wakeupSection(): Promise<void> {
  heading(
    `1. Wake-up latency (${plan.wakeups} selectors, Ready mark -> next step's first request)`,
  );
  const watch = await wakeupLatency('watch', plan.wakeups);
  const polling = await wakeupLatency('polling', plan.wakeups);
  Object.assign(figures, {
    'wakeup.watch.medianMs': watch.medianMs,
    'wakeup.watch.p99Ms': watch.p99Ms,
    'wakeup.polling.medianMs': polling.medianMs,
    'wakeup.polling.p99Ms': polling.p99Ms,
  });
  console.log(line('watch median', watch.medianMs, 'ms', target(watch.medianMs <= 50, '<= 50')));
  console.log(line('watch p99', watch.p99Ms, 'ms', target(watch.p99Ms <= 50, '<= 50')));
  console.log(line('polling median (POLL_INTERVAL_MS=1000)', polling.medianMs, 'ms', 'baseline'));
  console.log(line('watch / polling (median)', watch.medianMs / polling.medianMs, 'x'));
}

async function economySection(): Promise<void> {
  heading('2. API economy (requests pod-bouncer sends; watches counted apart)');
  const economy = await apiEconomy(plan.sizes, plan.delays, plan.baselineDelays);
  details.apiEconomy = economy;
  Object.assign(figures, {
    'api.perPod': economy.perPod,
    'api.perSelector': economy.perSelector,
    'api.perDirective': economy.perDirective,
    'api.perSelectorAllIn': economy.perSelectorAllIn,
    'api.polling.perPod': economy.baseline.perPod,
  });
  for (const run of economy.runs) {
    console.log(
      `  ${String(run.pods).padStart(5)} pods ${run.selectors} sel delay ${String(run.readinessDelayMs).padStart(5)} ms: ${run.requests} requests (${run.deletes} DELETE), ${run.perPod}/pod; watch+informer LIST ${run.informer}`,
    );
  }
  for (const run of economy.baseline.runs) {
    console.log(
      `  baseline (no watches) ${run.pods} pods delay ${run.readinessDelayMs} ms: ${run.requests} requests, ${run.perPod}/pod`,
    );
  }
  console.log(
    line('per pod (marginal)', economy.perPod, 'req', target(economy.perPod <= 1.05, '<= 1.05')),
  );
  console.log(
    line(
      'per selector (marginal)',
      economy.perSelector,
      'req',
      target(economy.perSelector <= 4, '<= 4'),
    ),
  );
  console.log(line('per directive (fixed)', economy.perDirective, 'req', 'PENDING + FINISHED'));
  console.log(
    line(
      'per selector, all in (2 selectors)',
      economy.perSelectorAllIn,
      'req',
      target(economy.perSelectorAllIn <= 4, '<= 4'),
    ),
  );
  console.log(line('per pod vs baseline', economy.perPod / economy.baseline.perPod, 'x'));
}

async function ingestSection(): Promise<void> {
  heading(
    `3. Ingest at 50 connections (autocannon), ${plan.ingestRounds} alternating rounds of ${plan.ingestSeconds} s (median round); events carry the generation the sender saw, plain references apart`,
  );
  const ingest = await ingestThroughput(
    plan.ingestSeconds,
    plan.ingestRounds,
    plan.ingestDirectives,
  );
  details.ingest = ingest;
  const { newVsNaive, duplicateVsBare, ignoredVsBare } = ingest.ratios;
  const newPlainVsNaive = ingest.newPlain.reqPerSec / ingest.naiveFlow.reqPerSec;
  const duplicatePlainVsBare = ingest.duplicatePlain.reqPerSec / ingest.bare.reqPerSec;
  Object.assign(figures, {
    'ingest.newReqPerSec': ingest.newEvents.reqPerSec,
    'ingest.newP99Ms': ingest.newEvents.p99Ms,
    'ingest.newPlainReqPerSec': ingest.newPlain.reqPerSec,
    'ingest.newPlainP99Ms': ingest.newPlain.p99Ms,
    'ingest.newPlainVsNaive': round(newPlainVsNaive, 2),
    'ingest.duplicatePlainReqPerSec': ingest.duplicatePlain.reqPerSec,
    'ingest.duplicatePlainVsBare': round(duplicatePlainVsBare, 2),
    'ingest.naiveFlowReqPerSec': ingest.naiveFlow.reqPerSec,
    'ingest.naiveFlowP99Ms': ingest.naiveFlow.p99Ms,
    'ingest.duplicateReqPerSec': ingest.duplicate.reqPerSec,
    'ingest.ignoredReqPerSec': ingest.ignored.reqPerSec,
    'ingest.bareReqPerSec': ingest.bare.reqPerSec,
    'ingest.newCpuUsPerRequest': ingest.newEvents.cpuUsPerRequest,
    'ingest.naiveFlowCpuUsPerRequest': ingest.naiveFlow.cpuUsPerRequest,
    'ingest.duplicateCpuUsPerRequest': ingest.duplicate.cpuUsPerRequest,
    'ingest.ignoredCpuUsPerRequest': ingest.ignored.cpuUsPerRequest,
    'ingest.bareCpuUsPerRequest': ingest.bare.cpuUsPerRequest,
    'ingest.newVsNaive': newVsNaive,
    'ingest.duplicateVsBare': duplicateVsBare,
    'ingest.ignoredVsBare': ignoredVsBare,
  });
  const { newEvents, naiveFlow, duplicate, ignored, bare, newPlain, duplicatePlain } = ingest;
  const loads = { newEvents, naiveFlow, duplicate, ignored, bare, newPlain, duplicatePlain };
  for (const [name, load] of Object.entries(loads)) {
    console.log(
      line(
        `${name} req/s (p99 ${load.p99Ms} ms, non-2xx ${load.non2xx}, CPU ${load.cpuUsPerRequest} µs/req)`,
        load.reqPerSec,
        'req/s',
      ),
    );
  }
  console.log(
    line('new / naive FlowProducer.add', newVsNaive, 'x', target(newVsNaive >= 1, '>= 1.0')),
  );
  console.log(line('new, plain reference (a GET each) / naive', newPlainVsNaive, 'x'));
  console.log(
    line('duplicate / bare 202', duplicateVsBare, 'x', target(duplicateVsBare >= 0.6, '>= 0.6')),
  );
  console.log(line('duplicate, plain reference / bare 202', duplicatePlainVsBare, 'x'));
  console.log(
    line('ignored / bare 202', ignoredVsBare, 'x', target(ignoredVsBare >= 0.6, '>= 0.6')),
  );
}

async function scaleSection(): Promise<void> {
  heading(
    `4. Scale (${plan.directives} directives x 3 selectors x 10 pods, readiness 500 ms, one worker process)`,
  );
  // First as the Helm chart runs a worker (its heap cap), then as the image runs it (the node flags
  // of its Dockerfile, the chart's NODE_OPTIONS apart: `scale.uncapped.*`), then that again held to
  // KUBE_QPS=200.
  const image = imageNodeOptions();
  const scale = await scaleMany(plan.directives, CHART_WORKER_NODE_OPTIONS);
  const uncapped = await scaleMany(plan.directives, image);
  const bound = await qpsBound(plan.qpsDirectives, image);
  details.scale = scale;
  details.scaleUncapped = uncapped;
  details.qpsBound = bound;
  Object.assign(figures, {
    'scale.wallMs': scale.wallMs,
    'scale.idealMs': scale.idealMs,
    'scale.ingestMs': scale.ingestMs,
    'scale.ratioToIdeal': scale.ratioToIdeal,
    'scale.ratioToAllAtOnce': scale.ratioToAllAtOnce,
    'scale.batchesPerSelector': scale.batchesPerSelector,
    'scale.peakRssMb': scale.peakRssMb,
    'scale.workerCpuMs': scale.workerCpuMs,
    'scale.chartCap.cpuPerPodMs': scale.cpuPerPodMs,
    'scale.simAndApiCpuMs': scale.simAndApiCpuMs,
    'scale.workerRequests': scale.workerRequests,
    'scale.cpuPerPodMs': uncapped.cpuPerPodMs,
    'scale.uncapped.wallMs': uncapped.wallMs,
    'scale.uncapped.ratioToIdeal': uncapped.ratioToIdeal,
    'scale.uncapped.peakRssMb': uncapped.peakRssMb,
    'scale.uncapped.workerCpuMs': uncapped.workerCpuMs,
    'scale.qpsBound.ratio': bound.ratio,
    'scale.qpsBound.wallMs': bound.run.wallMs,
    'scale.qpsBound.boundMs': bound.boundMs,
    'scale.qpsBound.requests': bound.run.workerRequests,
    'scale.qpsBound.directives': bound.run.directives,
  });
  for (const run of [scale, uncapped]) {
    const busy = (ms: number) => `busy ${round((100 * ms) / run.wallMs, 0)} % of the wall-clock`;
    console.log(
      `  worker node flags: ${run.nodeOptions || '(none: Node sizes the heap from the machine)'}${run === uncapped ? " (the image's own)" : " (the chart's heap cap)"}`,
    );
    console.log(
      line(
        'wall-clock',
        run.wallMs,
        'ms',
        `ideal ${run.idealMs} ms (3 x ${run.batchesPerSelector} batches x 500 + ingest ${run.ingestMs})`,
      ),
    );
    console.log(
      line('ratio to ideal', run.ratioToIdeal, 'x', target(run.ratioToIdeal <= 1.2, '<= 1.2')),
    );
    console.log(line('ratio to all-at-once ideal', run.ratioToAllAtOnce, 'x', `3 x 500 + ingest`));
    console.log(
      line('worker peak RSS', run.peakRssMb, 'MB', target(run.peakRssMb <= 200, '<= 200')),
    );
    console.log(
      line(
        'worker CPU',
        run.workerCpuMs,
        'ms',
        `${busy(run.workerCpuMs)}; its start-up (${run.workerStartCpuMs} ms) apart`,
      ),
    );
    console.log(line('simulator + api CPU', run.simAndApiCpuMs, 'ms', busy(run.simAndApiCpuMs)));
    console.log(
      line(
        'worker CPU per bounced pod',
        run.cpuPerPodMs,
        'ms',
        target(run.cpuPerPodMs <= 0.5, '<= 0.5'),
      ),
    );
    console.log(
      line('worker requests', run.workerRequests, 'req', `plus ${run.workerWatches} watches`),
    );
  }
  console.log(
    `  KUBE_QPS=${bound.qps} (burst ${bound.burst}), ${bound.run.directives} directives: ${bound.run.workerRequests} worker requests, bound ${bound.boundMs} ms`,
  );
  console.log(
    line('wall / (requests / QPS)', bound.ratio, 'x', target(bound.ratio <= 1.1, '<= 1.1')),
  );
  const bigs = [];
  for (const pods of plan.big) {
    const big = await bigDirective(pods);
    bigs.push(big);
    figures[`scale.big${pods}.wallMs`] = big.wallMs;
    figures[`scale.big${pods}.peakRssMb`] = big.peakRssMb;
    figures[`scale.big${pods}.statusBytes`] = big.statusBytes;
    console.log(
      `  one directive of ${String(pods).padStart(5)} pods: ${big.wallMs} ms, worker peak RSS ${big.peakRssMb} MB, directive object ${big.statusBytes} bytes (cap ~1.5 MB)`,
    );
  }
  details.big = bigs;
}

async function attackSection(): Promise<void> {
  heading('5. Real events under 200 unauthenticated connections (median latency vs a quiet api)');
  const attacked = await attackLatency('dist/cli.js', quick ? 10 : 20);
  figures['attack.quiet.medianMs'] = attacked.quietMedianMs;
  for (const row of attacked.cases) {
    figures[`attack.${row.attack}.medianMs`] = row.medianMs;
    figures[`attack.${row.attack}.ratio`] = row.ratio;
    console.log(
      line(
        row.attack,
        row.medianMs,
        'ms',
        `x${row.ratio} of quiet; peak RSS ${row.peakRssMiB} MiB`,
      ),
    );
  }
  details.attack = attacked;
}

async function coldStartSection(): Promise<void> {
  heading('6. Cold start (spawn -> first /readyz 200, median of 5, compile cache on)');
  const cold = await coldStart(5);
  Object.assign(figures, {
    'coldStart.serveMs': cold.serveMs,
    'coldStart.bareFastifyMs': cold.bareFastifyMs,
    'coldStart.ratio': cold.ratio,
    'coldStart.serveUncachedMs': cold.serveUncachedMs,
  });
  details.coldStart = cold;
  console.log(line('serve', cold.serveMs, 'ms', `CPU ${cold.serveCpuMs} ms`));
  console.log(line('bare fastify, started the same way', cold.bareFastifyMs, 'ms'));
  console.log(line('serve / bare fastify', cold.ratio, 'x'));
  console.log(line('serve, compile cache off', cold.serveUncachedMs, 'ms'));
}

async function meshSection(): Promise<void> {
  const { workloads, baseline } = plan.mesh;
  heading(
    `7. Mesh: a Gloo-shaped directive (istiod, 2 gateways, ${workloads} workloads of 3 pods), maxConcurrentSelectors 50`,
  );
  const run = await meshRun(workloads, 50);
  const slow = await meshRun(baseline, 1);
  const slowdown = round(slow.wallMs / slow.workloads / (run.wallMs / run.workloads), 1);
  Object.assign(figures, {
    'mesh.wallMs': run.wallMs,
    'mesh.floorMs': run.floorMs,
    'mesh.ratioToFloor': run.ratioToFloor,
    'mesh.peakRssMb': run.peakRssMb,
    'mesh.redisBytesPerSelector': run.redisBytesPerSelector,
    'mesh.statusBytes': run.statusBytes,
    'mesh.requestsPerPod': run.requestsPerPod,
    'mesh.ingestMs': run.ingestMs,
    'mesh.baseline.workloads': slow.workloads,
    'mesh.baseline.wallMs': slow.wallMs,
    'mesh.baseline.slowdownPerWorkload': slowdown,
  });
  const perNamespace = await watchModeCost(100, 15, 'per-namespace');
  const clusterWide = await watchModeCost(100, 15, 'cluster-wide');
  Object.assign(figures, {
    'mesh.watch.perNamespace.requests': perNamespace.lists + perNamespace.watches,
    'mesh.watch.clusterWide.requests': clusterWide.lists + clusterWide.watches,
    // Heap only where a GC could be forced first (`node --expose-gc`): otherwise it is noise.
    ...(perNamespace.heapMb === undefined || clusterWide.heapMb === undefined
      ? {}
      : {
          'mesh.watch.perNamespace.heapMb': perNamespace.heapMb,
          'mesh.watch.clusterWide.heapMb': clusterWide.heapMb,
        }),
  });
  details.mesh = { run, baseline: slow, watchModes: [perNamespace, clusterWide] };
  for (const cost of [perNamespace, clusterWide]) {
    console.log(
      line(
        `pods of 100 namespaces watched ${cost.mode}`,
        cost.lists + cost.watches,
        'requests',
        `${cost.lists} LISTs, ${cost.watches} watches; heap ${cost.heapMb === undefined ? 'not measured (node --expose-gc)' : `${cost.heapMb} MB`}`,
      ),
    );
  }
  console.log(line('wall', run.wallMs, 'ms', `floor ${run.floorMs} ms`));
  console.log(
    line('wall / floor', run.ratioToFloor, 'x', target(run.ratioToFloor <= 1.3, '<= 1.3')),
  );
  console.log(line('worker peak RSS', run.peakRssMb, 'MB', target(run.peakRssMb <= 200, '<= 200')));
  console.log(line('Redis bytes per selector (queued)', run.redisBytesPerSelector, 'B'));
  console.log(
    line('status bytes at FINISHED', run.statusBytes, 'B', `object ${run.objectBytes} B`),
  );
  console.log(
    line(
      'requests per pod',
      run.requestsPerPod,
      '',
      `${target(run.requestsPerPod <= 1.1, '<= 1.1')}; on pods ${run.podRequestsPerPod}`,
    ),
  );
  console.log(line('ingest (the 202)', run.ingestMs, 'ms', `pod watches ${run.podWatches}`));
  console.log(
    line(
      `K = 1 baseline (${slow.workloads} workloads)`,
      slow.wallMs,
      'ms',
      `${target(slowdown >= 20, '>= 20x slower per workload')}: ${slowdown}x`,
    ),
  );
}

/** Sections by name: `--only=ingest,scale` runs just those (a full run takes a while). */
const SECTIONS: Record<string, () => Promise<void>> = {
  wakeup: wakeupSection,
  economy: economySection,
  ingest: ingestSection,
  scale: scaleSection,
  attack: attackSection,
  coldstart: coldStartSection,
  mesh: meshSection,
};

const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const chosen = only === undefined ? Object.keys(SECTIONS) : only.split(',');

async function main() {
  const started = Date.now();
  console.log(`pod-bouncer benchmarks${quick ? ' (--quick)' : ''}: building dist/ for the worker`);
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });

  for (const name of chosen) {
    const section = SECTIONS[name];
    if (section === undefined)
      throw new Error(
        `no benchmark section ${name}; there are ${Object.keys(SECTIONS).join(', ')}`,
      );
    await section();
  }
  console.log(`  (${round((Date.now() - sectionStarted) / 1000, 0)} s)`);
  const machine = {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGb: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  const result = {
    ...figures,
    machine,
    at: new Date().toISOString(),
    quick,
    sections: chosen,
    durationS: round((Date.now() - started) / 1000, 0),
    details,
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/latest.json', `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    `\nmachine: ${machine.cores} cores (${machine.cpu}), Node ${machine.node}; took ${result.durationS} s`,
  );
  console.log('written: bench/results/latest.json');
}

await main();
process.exit(0);
