// Cold start of `pod-bouncer serve`: spawn → first 200 from /readyz, against a bare fastify
// process started the same way in the same run (scripts/bare-fastify.mjs), medians of five starts,
// with Node's compile cache (what the CLI enables) and, for serve, without it
// (NODE_DISABLE_COMPILE_CACHE=1). Run alone: `npm run build --silent && tsx bench/cold-start.ts`;
// `bench/run.ts` records serveMs, bareFastifyMs and their ratio.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startSimulator } from '../src/sim/index.js';
import { freePort } from '../test/support/redis-server.js';
import { cpuMs } from './lib/proc.js';

const STARTS = 5;

interface Start {
  wallMs: number;
  cpuMs: number;
}

async function oneStart(args: string[], env: Record<string, string>): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ok) return { wallMs: performance.now() - started, cpuMs: cpuMs(child.pid!) };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;

export interface ColdStart {
  node: string;
  starts: number;
  /** Median spawn → /readyz 200 of `node dist/cli.js serve`, compile cache on. */
  serveMs: number;
  serveCpuMs: number;
  /** The same for a bare fastify process, in the same run. */
  bareFastifyMs: number;
  bareFastifyCpuMs: number;
  ratio: number;
  /** serve with NODE_DISABLE_COMPILE_CACHE=1. */
  serveUncachedMs: number;
  samples: Record<'serve' | 'bareFastify' | 'serveUncached', number[]>;
}

/** Measures cold starts; needs dist/ built and Redis at REDIS_URL (default local). */
export async function coldStart(starts = STARTS): Promise<ColdStart> {
  const sim = await startSimulator();
  const dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-cold-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await sim.writeKubeconfig(kubeconfig);
  const env = { KUBECONFIG: kubeconfig, WEBHOOK_AUTH: 'none', LOG_LEVEL: 'warn' };
  const serve = ['dist/cli.js', 'serve'];
  const bare = ['scripts/bare-fastify.mjs'];
  try {
    // The first start of each fills the compile cache (the default cache folder).
    await oneStart(serve, env);
    await oneStart(bare, env);
    const runs: Record<keyof ColdStart['samples'], Start[]> = {
      serve: [],
      bareFastify: [],
      serveUncached: [],
    };
    // Interleaved, so that a busy moment of the machine weighs on both alike.
    for (let index = 0; index < starts; index += 1) {
      runs.serve.push(await oneStart(serve, env));
      runs.bareFastify.push(await oneStart(bare, env));
      runs.serveUncached.push(await oneStart(serve, { ...env, NODE_DISABLE_COMPILE_CACHE: '1' }));
    }
    const wall = (list: Start[]): number => Math.round(median(list.map((s) => s.wallMs)));
    const cpu = (list: Start[]): number => Math.round(median(list.map((s) => s.cpuMs)));
    const serveMs = wall(runs.serve);
    const bareFastifyMs = wall(runs.bareFastify);
    return {
      node: process.version,
      starts,
      serveMs,
      serveCpuMs: cpu(runs.serve),
      bareFastifyMs,
      bareFastifyCpuMs: cpu(runs.bareFastify),
      ratio: Math.round((100 * serveMs) / bareFastifyMs) / 100,
      serveUncachedMs: wall(runs.serveUncached),
      samples: {
        serve: runs.serve.map((s) => Math.round(s.wallMs)),
        bareFastify: runs.bareFastify.map((s) => Math.round(s.wallMs)),
        serveUncached: runs.serveUncached.map((s) => Math.round(s.wallMs)),
      },
    };
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await coldStart();
  console.log(
    `node ${result.node}, spawn → /readyz 200, median of ${result.starts} starts (compile cache on)`,
  );
  console.log(
    `serve: ${result.serveMs} ms (${result.samples.serve.join(', ')}), CPU ${result.serveCpuMs} ms`,
  );
  console.log(
    `bare fastify: ${result.bareFastifyMs} ms (${result.samples.bareFastify.join(', ')}), CPU ${result.bareFastifyCpuMs} ms`,
  );
  console.log(`serve / bare fastify: ${result.ratio}x`);
  console.log(
    `serve, compile cache off: ${result.serveUncachedMs} ms (${result.samples.serveUncached.join(', ')})`,
  );
}
