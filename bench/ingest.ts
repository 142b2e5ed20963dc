// Ingest at 50 connections (autocannon): new events by reference vs a naive FlowProducer.add
// route; duplicate and ignored events vs a bare fastify route answering 202.
import { spawn } from 'node:child_process';
import { execPath } from 'node:process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { TOKEN } from './lib/stack.js';
import { cpuMs } from './lib/proc.js';
import { median, round } from './lib/stats.js';

export interface Load {
  reqPerSec: number;
  p99Ms: number;
  non2xx: number;
  /**
   * CPU the servers' process used per request answered (µs), the api's trailing PENDING writes
   * included: unlike the rate, it does not depend on how much CPU the load generator got.
   */
  cpuUsPerRequest: number;
}

export interface IngestResult {
  /** New events carrying the generation the sender saw: the api's watch cache answers. */
  newEvents: Load;
  /** New events as plain references (namespace and name only): one GET each. */
  newPlain: Load;
  naiveFlow: Load;
  duplicate: Load;
  duplicatePlain: Load;
  ignored: Load;
  bare: Load;
  /** Each the median over the rounds of the ratio measured within a round. */
  ratios: { newVsNaive: number; duplicateVsBare: number; ignoredVsBare: number };
}

const CONNECTIONS = 50;
/** Warm-up loads of a second each, until two in a row agree within 10 % (at most this many). */
const WARM_UP_MAX_LOADS = 5;

/** The servers under load: their URLs and the process they share (for its CPU). */
interface Servers {
  api: string;
  naive: string;
  bare: string;
  pid: number;
}

/** New events leave PENDING writes behind: their load ends once those are made (`settles`). */
async function load(
  servers: Servers,
  url: string,
  seconds: number,
  body: (i: number) => unknown,
  settles = false,
): Promise<Load> {
  let counter = 0;
  const cpuBefore = cpuMs(servers.pid);
  const result = await autocannon({
    url: `${url}/v1/events`,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    requests: [
      {
        setupRequest: (request: any) => ({ ...request, body: JSON.stringify(body(counter++)) }),
      },
    ],
  });
  if (settles) await settle(servers);
  return {
    reqPerSec: round(result.requests.average, 0),
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
    cpuUsPerRequest: round(((cpuMs(servers.pid) - cpuBefore) * 1000) / result.requests.total, 0),
  };
}

const IGNORED = {
  kind: 'Event',
  apiVersion: 'v1',
  metadata: { name: 'x.1', namespace: 'in' },
  involvedObject: { kind: 'Pod', name: 'some-pod', namespace: 'in' },
  reason: 'Pulled',
  message: 'not about a directive',
};

/** Starts a bench script as a child and reads the JSON line it prints when ready. */
export async function child<T>(
  script: string,
  args: string[],
): Promise<{ info: T; pid: number; stop: () => Promise<void> }> {
  // Node itself with tsx's loader (not tsx's CLI, which runs the script in a second process):
  // the pid is the process that serves.
  const process = spawn(execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<T>((resolve, reject) => {
    process.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    createInterface(process.stdout).once('line', (line) => resolve(JSON.parse(line)));
  });
  return {
    info,
    pid: process.pid!,
    stop: async () => {
      process.kill('SIGTERM');
      await new Promise((resolve) => process.once('exit', resolve));
    },
  };
}

/**
 * Loads a route a second at a time until its rate settles (two loads in a row within 10 %): V8
 * optimizes a long path such as the api's over thousands of requests, and a figure measured
 * before that compares a cold process with a warm one.
 */
async function warmUp(servers: Servers, url: string, body: (i: number) => unknown): Promise<void> {
  let previous = 0;
  for (let i = 0; i < WARM_UP_MAX_LOADS; i++) {
    const { reqPerSec } = await load(servers, url, 1, body);
    if (Math.abs(reqPerSec - previous) <= 0.1 * reqPerSec) return;
    previous = reqPerSec;
  }
}

/** The api's trailing PENDING writes made, then a moment for their watch events. */
async function settle(servers: Servers): Promise<void> {
  await fetch(`${servers.bare}/settled`);
  await new Promise((resolve) => setTimeout(resolve, 500));
}

/** The loads of one round, run back to back so that each ratio compares neighbours in time. */
type Round = Pick<IngestResult, 'newEvents' | 'naiveFlow' | 'duplicate' | 'ignored' | 'bare'>;

/** The median load of the rounds (by rate), and the median of each round's ratio. */
function summarize(rounds: Round[]): Pick<IngestResult, keyof Round | 'ratios'> {
  const middle = (key: keyof Round): Load => {
    const loads = rounds.map((r) => r[key]).sort((a, b) => a.reqPerSec - b.reqPerSec);
    const mid = loads[Math.floor((loads.length - 1) / 2)]!;
    return { ...mid, non2xx: loads.reduce((sum, load) => sum + load.non2xx, 0) };
  };
  const ratio = (top: keyof Round, bottom: keyof Round): number =>
    round(median(rounds.map((r) => r[top].reqPerSec / r[bottom].reqPerSec)), 2);
  return {
    newEvents: middle('newEvents'),
    naiveFlow: middle('naiveFlow'),
    duplicate: middle('duplicate'),
    ignored: middle('ignored'),
    bare: middle('bare'),
    ratios: {
      newVsNaive: ratio('newEvents', 'naiveFlow'),
      duplicateVsBare: ratio('duplicate', 'bare'),
      ignoredVsBare: ratio('ignored', 'bare'),
    },
  };
}

export async function ingestThroughput(
  seconds: number,
  rounds: number,
  directives: number,
): Promise<IngestResult> {
  const sim = await child<{ kubeconfig: string }>('bench/sim-server.ts', [String(directives)]);
  try {
    const server = await child<{ api: string; naive: string; bare: string }>(
      'bench/ingest-server.ts',
      [sim.info.kubeconfig],
    );
    try {
      const servers: Servers = { ...server.info, pid: server.pid };
      const ref = (name: string) => ({ directive: { namespace: 'in', name } });
      // Every directive of the benchmark is at generation 1, as the sender saw it.
      const seen = (name: string) => ({ directive: { namespace: 'in', name, generation: 1 } });
      // Each new event names a directive no earlier event named (a 404 or a duplicate would
      // flatter the figure): one counter across all loads, and the count of directives as a
      // bound that the run reports as non-2xx when it is reached.
      let next = 0;
      const newEvents = (): Promise<Load> =>
        load(servers, servers.api, seconds, () => seen(`n-${next++}`), true);
      // Every route warmed up first (JIT, connections, the api's caches) until its rate settles:
      // the loads measured compare steady states, not a process's start.
      for (const [url, body] of [
        [servers.api, () => seen(`n-${next++}`)],
        [servers.naive, (i: number) => ref(`w-${i}`)],
        [servers.api, () => seen('dup')],
        [servers.api, () => IGNORED],
        [servers.bare, () => ref('dup')],
      ] as const) {
        await warmUp(servers, url, body);
      }
      await settle(servers);
      // The machine's speed drifts over a run (other tenants, clocks): the loads alternate in
      // rounds, each ratio is taken within a round, and the median round is reported.
      const measured: Round[] = [];
      for (let i = 0; i < rounds; i++) {
        measured.push({
          newEvents: await newEvents(),
          naiveFlow: await load(servers, servers.naive, seconds, (n) => ref(`n-${n}`)),
          duplicate: await load(servers, servers.api, seconds, () => seen('dup')),
          ignored: await load(servers, servers.api, seconds, () => IGNORED),
          bare: await load(servers, servers.bare, seconds, () => ref('dup')),
        });
      }
      // The plain references (a GET each) are shown, not targeted: one load each.
      const newPlain = await load(servers, servers.api, seconds, () => ref(`n-${next++}`), true);
      const duplicatePlain = await load(servers, servers.api, seconds, () => ref('dup'));
      return { ...summarize(measured), newPlain, duplicatePlain };
    } finally {
      await server.stop();
    }
  } finally {
    await sim.stop();
  }
}
