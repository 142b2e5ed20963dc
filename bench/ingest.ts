// Ingest at 50 connections (autocannon): new events by reference vs a naive FlowProducer.add
// route; duplicate and ignored events vs a bare fastify route answering 202.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { TOKEN } from './lib/stack.js';
import { round } from './lib/stats.js';

export interface Load {
  reqPerSec: number;
  p99Ms: number;
  non2xx: number;
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
}

const CONNECTIONS = 50;
const WARM_UP_SECONDS = 1;

async function load(url: string, seconds: number, body: (i: number) => unknown): Promise<Load> {
  let counter = 0;
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
  return {
    reqPerSec: round(result.requests.average, 0),
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
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
): Promise<{ info: T; stop: () => Promise<void> }> {
  const process = spawn('node_modules/.bin/tsx', [script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<T>((resolve, reject) => {
    process.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    createInterface(process.stdout).once('line', (line) => resolve(JSON.parse(line)));
  });
  return {
    info,
    stop: async () => {
      process.kill('SIGTERM');
      await new Promise((resolve) => process.once('exit', resolve));
    },
  };
}

/** The api's trailing PENDING writes made, then a moment for their watch events. */
async function settle(bare: string): Promise<void> {
  await fetch(`${bare}/settled`);
  await new Promise((resolve) => setTimeout(resolve, 1000));
}

export async function ingestThroughput(seconds: number, directives: number): Promise<IngestResult> {
  const sim = await child<{ kubeconfig: string }>('bench/sim-server.ts', [String(directives)]);
  try {
    const servers = await child<{ api: string; naive: string; bare: string }>(
      'bench/ingest-server.ts',
      [sim.info.kubeconfig],
    );
    try {
      const urls = servers.info;
      const ref = (name: string) => ({ directive: { namespace: 'in', name } });
      // Every directive of the benchmark is at generation 1, as the sender saw it.
      const seen = (name: string) => ({ directive: { namespace: 'in', name, generation: 1 } });
      // Each new event names a directive no earlier event named (a 404 or a duplicate would
      // flatter the figure): one counter across both loads, and the count of directives as a
      // bound that the run reports as non-2xx when it is reached.
      let next = 0;
      // Every route warmed up first (JIT, connections, the api's caches): the first load measured
      // must not pay for the process's start.
      for (const [url, body] of [
        [urls.api, () => seen(`n-${next++}`)],
        [urls.naive, (i: number) => ref(`w-${i}`)],
        [urls.api, () => seen('dup')],
        [urls.api, () => IGNORED],
        [urls.bare, () => ref('dup')],
      ] as const) {
        await load(url, WARM_UP_SECONDS, body);
      }
      await settle(urls.bare);
      const newEvents = await load(urls.api, seconds, () => seen(`n-${next++}`));
      await settle(urls.bare);
      const newPlain = await load(urls.api, seconds, () => ref(`n-${next++}`));
      await settle(urls.bare);
      const naiveFlow = await load(urls.naive, seconds, (i) => ref(`n-${i}`));
      const duplicate = await load(urls.api, seconds, () => seen('dup'));
      const duplicatePlain = await load(urls.api, seconds, () => ref('dup'));
      const ignored = await load(urls.api, seconds, () => IGNORED);
      const bare = await load(urls.bare, seconds, () => ref('dup'));
      return { newEvents, newPlain, naiveFlow, duplicate, duplicatePlain, ignored, bare };
    } finally {
      await servers.stop();
    }
  } finally {
    await sim.stop();
  }
}
