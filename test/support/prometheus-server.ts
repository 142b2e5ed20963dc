import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { eventually } from './harness.js';
import { freePort } from './redis-server.js';

/** A real Prometheus of the test's own, evaluating `rules` every second. */
export interface OwnPrometheus {
  url: string;
  /** Resolves once the named alerts are in these states (`firing`, `pending`, `inactive`). */
  alertsAre(states: Record<string, string>): Promise<void>;
  /** Kills the process (SIGKILL: no goodbye to clients); its data stays for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data, resolving once it answers. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface PrometheusOptions {
  /** `host:port` addresses scraped every second (job `test`), e.g. a test's own exporter. */
  scrapeTargets?: string[];
}

function configOf(options: PrometheusOptions): string {
  const targets = options.scrapeTargets ?? [];
  const scrape =
    targets.length === 0
      ? ''
      : `scrape_configs:\n  - job_name: test\n    scrape_interval: 1s\n    scrape_timeout: 1s\n    static_configs:\n      - targets: ${JSON.stringify(targets)}\n`;
  return `global:\n  evaluation_interval: 1s\n  scrape_interval: 1s\nrule_files: [rules.yml]\n${scrape}`;
}

export async function startPrometheus(
  binary: string,
  rules: string,
  options: PrometheusOptions = {},
): Promise<OwnPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-prometheus-'));
  await writeFile(join(dir, 'rules.yml'), rules);
  await writeFile(join(dir, 'prometheus.yml'), configOf(options));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const launch = (): void => {
    child = spawn(
      binary,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  const alertsAre = async (states: Record<string, string>): Promise<void> => {
    await eventually(
      `Prometheus alerts ${JSON.stringify(states)}`,
      async () => {
        const answer = await fetch(`${url}/api/v1/alerts`).catch(() => undefined);
        const body = (await answer?.json().catch(() => undefined)) as
          { data: { alerts: Array<{ state: string; labels: { alertname: string } }> } } | undefined;
        if (body === undefined) return undefined;
        const seen = new Map(body.data.alerts.map((a) => [a.labels.alertname, a.state]));
        return Object.entries(states).every(([name, state]) =>
          state === 'inactive' ? !seen.has(name) : seen.get(name) === state,
        )
          ? true
          : undefined;
      },
      60_000,
    );
  };
  launch();
  return {
    url,
    alertsAre,
    stop,
    async start() {
      await stop();
      launch();
      await eventually(
        'Prometheus to answer again',
        async () => ((await fetch(`${url}/-/ready`).catch(() => undefined))?.ok ? true : undefined),
        60_000,
      );
    },
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A tiny exporter: an HTTP server whose /metrics serves the gauges the test sets. */
export interface Exporter {
  /** `host:port`, the scrape target. */
  target: string;
  /** Sets a gauge; undefined stops serving it (no sample). */
  set(name: string, value: number | undefined): void;
  close(): Promise<void>;
}

export async function startExporter(): Promise<Exporter> {
  const gauges = new Map<string, number>();
  const server = createServer((_request, response) => {
    const lines = [...gauges].map(([name, value]) => `# TYPE ${name} gauge\n${name} ${value}\n`);
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    response.end(lines.join(''));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    target: `127.0.0.1:${port}`,
    set(name, value) {
      if (value === undefined) gauges.delete(name);
      else gauges.set(name, value);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
