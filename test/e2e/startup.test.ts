import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { SIM_TOKEN } from '../../src/sim/kubeconfig.js';
import { deletePrefix, directiveManifest } from '../../src/stack/sim-stack.js';
import { linesOf, runCli } from '../support/cli-run.js';
import { startCli, stopCli, type CliProcess } from '../support/processes.js';
import { eventually } from '../support/harness.js';
import { freePort, ownRedis } from '../support/redis-server.js';
import { REDIS_URL } from '../support/redis.js';

/**
 * Start-up that tells the truth: what is missing is said in one sentence and the process exits 1,
 * instead of starting and retrying in silence. A Redis lost later is said once, not per retry.
 */
describe('start-up', () => {
  let sim: Simulator;
  let dir: string;
  let kubeconfig: string;
  let base: Record<string, string>;
  beforeAll(async () => {
    sim = await startSimulator();
    dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-startup-'));
    kubeconfig = join(dir, 'kubeconfig');
    await sim.writeKubeconfig(kubeconfig);
    // An empty home: no ~/.kube/config to fall back on.
    base = {
      HOME: dir,
      WEBHOOK_AUTH: 'none',
      PORT: '0',
      HOST: '127.0.0.1',
      KUBECONFIG: kubeconfig,
      REDIS_URL,
      QUEUE_PREFIX: `pbtest-startup-${process.pid}`,
      LOG_LEVEL: 'info',
    };
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
    await deletePrefix(REDIS_URL, base.QUEUE_PREFIX!);
  });

  /** One sentence on stderr, no stack, exit code 1 (2 for a configuration error). */
  async function refused(
    role: string,
    env: Record<string, string | undefined>,
    code = 1,
  ): Promise<string> {
    const result = await runCli([role], { ...base, ...env });
    expect(result.code).toBe(code);
    const lines = linesOf(result.stderr);
    expect(lines, result.stderr).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    return lines[0]!;
  }

  it('names the missing Kubernetes access for serve, work and all', async () => {
    const none = { KUBECONFIG: undefined };
    expect(await refused('serve', none)).toMatch(/^No Kubernetes API access: set KUBECONFIG/);
    expect(await refused('work', { KUBECONFIG: '/nonexistent' })).toBe(
      'KUBECONFIG names /nonexistent, which cannot be read (no such file): point it at a kubeconfig file.',
    );
    expect(await refused('all', { KUBE_CONTEXT: 'production' })).toBe(
      `KUBE_CONTEXT "production" is not a context of ${kubeconfig}; it has sim.`,
    );
  });

  /** The api's URL, once the process says it listens. */
  const listening = (cli: CliProcess): Promise<string> =>
    eventually('the process to listen', () => {
      const line = linesOf(cli.output()).find((each) => each.includes('pod-bouncer is listening'));
      return line === undefined ? undefined : (JSON.parse(line) as { url: string }).url;
    });

  it('serve answers its probe before it loads the Kubernetes client and BullMQ, then an event', async () => {
    const cli = startCli('serve', base);
    try {
      const url = await listening(cli);
      // Nothing asked for the API server yet: the probe neither waits for the client nor fails.
      const first = await fetch(`${url}/readyz`);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ status: 'ready', redis: 'ok', kubernetes: 'starting' });
      // The probe started the load once it had answered; the API server is asked from then on.
      await eventually('the Kubernetes API to be reported', async () => {
        const body = (await (await fetch(`${url}/readyz`)).json()) as { kubernetes: string };
        return body.kubernetes === 'ok' ? true : undefined;
      });
      // The first event loads what it needs of BullMQ, as the built executable bundles it.
      sim.applyDirective(directiveManifest('startup', 'first', [{ namespace: 'startup' }]));
      const event = await fetch(`${url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ directive: { namespace: 'startup', name: 'first' } }),
      });
      expect(event.status).toBe(202);
      expect(await event.json()).toMatchObject({ directive: 'startup/first', duplicate: false });
    } finally {
      await stopCli(cli);
    }
  });

  it('ends serve with one sentence when client-node refuses the kubeconfig at first use', async () => {
    // Start-up reads this kubeconfig, token file included; then the token file goes away.
    const token = join(dir, 'token');
    await writeFile(token, SIM_TOKEN);
    const withTokenFile = join(dir, 'kubeconfig-token-file');
    const text = await readFile(kubeconfig, 'utf8');
    await writeFile(withTokenFile, text.replace(`token: ${SIM_TOKEN}`, `token-file: ${token}`));
    const cli = startCli('serve', { ...base, KUBECONFIG: withTokenFile });
    try {
      const url = await listening(cli);
      await rm(token);
      // A request that needs the API server loads the client, which refuses: no answer, exit 1.
      const answer = await fetch(`${url}/v1/directives/istio-system/mesh-certs`).then(
        (response) => response.status,
        () => 'no answer',
      );
      expect(answer).toBe('no answer');
      expect((await cli.exited).code).toBe(1);
      const errors = linesOf(cli.output()).filter((line) => !line.startsWith('{'));
      expect(errors).toEqual([
        `The kubeconfig ${withTokenFile} cannot be loaded (ENOENT: no such file or directory, open '${token}'): fix or replace it.`,
      ]);
    } finally {
      await stopCli(cli);
    }
  });

  it('names Redis (without its credentials) when it does not answer within 10 s', async () => {
    const port = await freePort();
    const sentence = await refused('work', { REDIS_URL: `redis://:hunter2-pw@127.0.0.1:${port}` });
    expect(sentence).toBe(
      `Redis at redis://127.0.0.1:${port} did not answer within 10 s: start it, or set REDIS_URL to one that runs.`,
    );
  });

  it('names REDIS_URL (without its password) when its database is not a number or is refused', async () => {
    const badPath = { REDIS_URL: 'redis://:hunter2-pw@127.0.0.1:6379/abc' };
    expect(await refused('work', badPath, 2)).toBe(
      'REDIS_URL must name its database by a whole number from 0 (redis://host:6379/0) or not at all.',
    );
    // The shared Redis has databases 0 to 15.
    expect(await refused('serve', { REDIS_URL: `${REDIS_URL}/99` })).toBe(
      `Redis at ${REDIS_URL}/99 refuses that database (ERR DB index is out of range): set REDIS_URL to a database it has, such as /0.`,
    );
  });

  it('the demo without Redis, and no redis-server on PATH, says how to start it instead of hanging', async () => {
    const port = await freePort();
    // With redis-server on PATH the demo starts a private one instead (test/e2e/demo.test.ts).
    const sentence = await refused('demo', {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      // No redis-server to be found (the CLI itself is started by its absolute path).
      PATH: join(tmpdir(), 'pod-bouncer-no-such-dir'),
    });
    expect(sentence).toMatch(
      /^Redis at redis:\/\/127\.0\.0\.1:\d+ did not answer within 10 s: start Redis with /,
    );
  });

  it('says once that Redis is gone, retries quietly, and says when it is back', async () => {
    const redis = await ownRedis();
    await redis.start();
    const cli = startCli('all', { ...base, REDIS_URL: redis.url });
    try {
      await eventually('the process to listen', () =>
        /is listening/.test(cli.output()) ? true : undefined,
      );
      await redis.stop();
      await eventually('the outage line', () =>
        /is unreachable/.test(cli.output()) ? true : undefined,
      );
      // Let ioredis and BullMQ retry a good number of times before counting lines.
      await new Promise((resolve) => setTimeout(resolve, 4000));
      const during = linesOf(cli.output()).filter((line) => !line.includes('"is listening"'));
      const outage = during.filter((line) => line.includes('is unreachable'));
      // One line per connection that lost Redis (the api's and the worker's), not one per retry.
      expect(outage.length).toBeGreaterThan(0);
      expect(outage.length).toBeLessThanOrEqual(2);
      for (const line of outage)
        expect(JSON.parse(line)).toMatchObject({ level: 'warn', redis: redis.url });
      expect(cli.output()).not.toMatch(/ECONNREFUSED[^\n]*\n\s+at |"stack"|worker error/);
      await redis.start();
      await eventually('the recovery line', () =>
        /answers again/.test(cli.output()) ? true : undefined,
      );
      expect(cli.child.exitCode).toBeNull();
    } finally {
      await stopCli(cli);
      await redis.stop();
    }
  });
});
