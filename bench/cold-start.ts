// Cold start of `pod-bouncer serve`: spawn → first 200 from /readyz, five starts each with Node's
// compile cache (what the CLI enables) and without it (NODE_DISABLE_COMPILE_CACHE=1); prints the
// medians. Run: `npm run build --silent && node_modules/.bin/tsx bench/cold-start.ts`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../src/sim/index.js';
import { freePort } from '../test/support/redis-server.js';

const STARTS = 5;

/** CPU time (user + system) the process has used so far, from /proc (Linux; 10 ms ticks). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Start {
  wallMs: number;
  cpuMs: number;
}

async function oneStart(env: Record<string, string>): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/cli.js', 'serve'], {
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
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;

const sim = await startSimulator();
const dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-cold-'));
const kubeconfig = join(dir, 'kubeconfig');
await sim.writeKubeconfig(kubeconfig);
const base = {
  KUBECONFIG: kubeconfig,
  WEBHOOK_AUTH: 'none',
  LOG_LEVEL: 'warn',
};
try {
  // The CLI's own module.enableCompileCache() (the default cache folder): the first start fills it.
  await oneStart(base);
  const results: Record<'cached' | 'uncached', Start[]> = { cached: [], uncached: [] };
  for (let index = 0; index < STARTS; index += 1) {
    results.cached.push(await oneStart(base));
    results.uncached.push(await oneStart({ ...base, NODE_DISABLE_COMPILE_CACHE: '1' }));
  }
  console.log(`node ${process.version}, serve spawn → /readyz 200, ${STARTS} starts each`);
  for (const [label, starts] of Object.entries(results)) {
    const wall = starts.map((start) => start.wallMs);
    const cpu = starts.map((start) => start.cpuMs);
    console.log(
      `compile cache ${label === 'cached' ? 'on ' : 'off'}: median ${median(wall).toFixed(0)} ms wall (${wall.map((v) => v.toFixed(0)).join(', ')}), median ${median(cpu).toFixed(0)} ms CPU`,
    );
  }
} finally {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
}
