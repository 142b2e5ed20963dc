import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { loadConfig } from '../config.js';
import { StartupError } from '../errors.js';
import { checkRedis } from '../preflight.js';
import { redisAnswers, redisTarget } from '../queue/redis-watch.js';
import type { Print } from './progress.js';

/** How long the demo asks REDIS_URL before it looks for a redis-server of its own. */
const PROBE_MS = 1_500;
const START_MS = 10_000;
const START_HINT =
  'start Redis with `docker compose up -d redis` or `redis-server --daemonize yes`, or set REDIS_URL';

/** The Redis the demo runs on, and how to give it back. */
export interface DemoRedis {
  url: string | undefined;
  stop(): Promise<void>;
}

/**
 * The Redis at REDIS_URL when it answers; otherwise, when `redis-server` is on PATH, a private
 * one on a free port (no persistence, files in a temp dir), so that `npm run demo` works where
 * Redis is installed but not running. Says so in one line. Without either, the start-up sentence.
 */
export async function demoRedis(url: string | undefined, print: Print): Promise<DemoRedis> {
  const topology = loadConfig({ REDIS_URL: url }).redis;
  const given = { url, stop: async (): Promise<void> => undefined };
  if (await redisAnswers(topology, PROBE_MS)) return given;
  const server = onPath('redis-server');
  if (server === undefined) {
    await checkRedis(topology, START_HINT);
    return given;
  }
  const own = await startPrivateRedis(server);
  print(
    `Nothing answered at ${redisTarget(topology)}: started a private redis-server at ${own.url} for this demo; it stops when the demo ends.`,
  );
  return own;
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

async function startPrivateRedis(server: string): Promise<DemoRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-demo-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn(server, [...args, '--dir', dir], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    await kill(child);
    await rm(dir, { recursive: true, force: true });
  };
  if (!(await redisAnswers(loadConfig({ REDIS_URL: url }).redis, START_MS))) {
    await stop();
    throw new StartupError(`The private redis-server at ${url} did not answer within 10 s.`);
  }
  return { url, stop };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
