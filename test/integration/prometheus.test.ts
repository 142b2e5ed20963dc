// A real Prometheus scrapes a real api and a real worker (`node dist/cli.js serve` and `work`)
// while a directive runs on the simulator; the test reads what Prometheus stored through its HTTP
// API. prometheus comes from Debian's package, which .ci/run installs: CI never skips this.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiredBinary } from '../support/binaries.js';
import {
  directive,
  eventually,
  startHarness,
  TOKEN,
  waitForState,
  type Harness,
} from '../support/harness.js';
import { startCli, stopCli, type CliProcess } from '../support/processes.js';

const prometheus = requiredBinary('prometheus', 'apt-get install -y prometheus');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The address a pod-bouncer process logged it listens on. */
function listening(cli: CliProcess): Promise<string> {
  return eventually(`${cli.child.spawnargs.join(' ')} to listen`, () => {
    const url = /"url":"http:\/\/([^"]+)"/.exec(cli.output())?.[1];
    return url;
  });
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describe.skipIf(prometheus === undefined)('scraped by a real Prometheus', () => {
  let h: Harness;
  let api: CliProcess;
  let worker: CliProcess;
  let server: ChildProcess;
  let dir: string;
  let promUrl: string;

  const query = async (promql: string): Promise<Sample[]> => {
    const response = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await response.json()) as { status: string; data: { result: Sample[] } };
    expect(body.status).toBe('success');
    return body.data.result;
  };

  beforeAll(async () => {
    h = await startHarness('prometheus', { worker: false });
    const env = { ...h.env, LOG_LEVEL: 'info' };
    api = startCli('serve', env);
    worker = startCli('work', env);
    const [apiAddress, workerAddress] = await Promise.all([listening(api), listening(worker)]);
    dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-prometheus-'));
    const config = [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 900ms',
      'scrape_configs:',
      '  - job_name: pod-bouncer-api',
      `    static_configs: [{ targets: ['${apiAddress}'] }]`,
      '  - job_name: pod-bouncer-worker',
      `    static_configs: [{ targets: ['${workerAddress}'] }]`,
    ].join('\n');
    await writeFile(join(dir, 'prometheus.yml'), `${config}\n`);
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    server = spawn(
      prometheus!,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: 'ignore' },
    );
    await eventually('Prometheus to be ready', async () => {
      const ready = await fetch(`${promUrl}/-/ready`).catch(() => undefined);
      return ready?.ok ? true : undefined;
    });
  });

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const gone = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await gone;
    }
    if (worker) await stopCli(worker);
    if (api) await stopCli(api);
    await h?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('stores the pods the worker bounced, its build info and the directive state', async () => {
    h.sim.addWorkload({
      namespace: 'apps',
      name: 'web',
      kind: 'ReplicaSet',
      labels: { app: 'web' },
      replicas: 3,
    });
    h.sim.applyDirective(
      directive('apps', 'web', [{ namespace: 'apps', labels: { app: 'web' }, waitForReplicas: 3 }]),
    );
    const apiUrl = `http://${/"url":"http:\/\/([^"]+)"/.exec(api.output())![1]}`;
    const accepted = await fetch(`${apiUrl}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ directive: { namespace: 'apps', name: 'web' } }),
    });
    expect(accepted.status).toBe(202);
    await waitForState(h, 'apps', 'web', 'FINISHED');

    const bounced = 'sum by (job) (pod_bouncer_pods_bounced_total{namespace="apps"})';
    const result = await eventually(
      'Prometheus to have scraped the bounced pods',
      async () => {
        const samples = await query(bounced);
        return samples[0]?.value[1] === '3' ? samples : undefined;
      },
      30_000,
    );
    expect(result).toEqual([
      { metric: { job: 'pod-bouncer-worker' }, value: [expect.any(Number), '3'] },
    ]);
    process.stdout.write(`Prometheus: ${bounced} => ${JSON.stringify(result)}\n`);

    // Each target is scraped on its own schedule (1 s, with a 1 s timeout on a busy machine):
    // wait until both have been stored once.
    const roles = await eventually(
      'both roles to have been scraped',
      async () => {
        const samples = await query('pod_bouncer_build_info == 1');
        return samples.length >= 2 ? samples : undefined;
      },
      30_000,
    );
    expect(roles.map((s) => [s.metric.job, s.metric.role]).sort()).toEqual([
      ['pod-bouncer-api', 'serve'],
      ['pod-bouncer-worker', 'work'],
    ]);
    const finished = await eventually('the FINISHED state to be scraped', async () => {
      const samples = await query(
        'pod_bouncer_directive_state{namespace="apps", name="web", state="FINISHED"} == 1',
      );
      return samples.length > 0 ? samples : undefined;
    });
    expect(finished.map((s) => s.metric.job)).toEqual(['pod-bouncer-worker']);
    // The api writes PENDING after its answer, unless the worker already wrote the run's status
    // (then PENDING changes nothing and is not a transition): the worker's is the latest either way.
    const current = await query(
      'max by (job) (pod_bouncer_directive_last_transition_timestamp_seconds{name="web"})',
    );
    const byJob = Object.fromEntries(current.map((s) => [s.metric.job, Number(s.value[1])]));
    expect(byJob['pod-bouncer-worker']).toBeGreaterThan(0);
    if (byJob['pod-bouncer-api'] !== undefined) {
      expect(byJob['pod-bouncer-worker']).toBeGreaterThan(byJob['pod-bouncer-api']);
    }
  });
});
