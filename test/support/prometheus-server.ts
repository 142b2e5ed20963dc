import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { eventually } from './harness.js';
import { freePort } from './redis-server.js';

/** A real Prometheus of the test's own, evaluating `rules` every second, with no scrape targets. */
export interface OwnPrometheus {
  url: string;
  /** Resolves once the named alerts are in these states (`firing`, `pending`). */
  alertsAre(states: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

export async function startPrometheus(binary: string, rules: string): Promise<OwnPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-prometheus-'));
  await writeFile(join(dir, 'rules.yml'), rules);
  await writeFile(
    join(dir, 'prometheus.yml'),
    'global:\n  evaluation_interval: 1s\nrule_files: [rules.yml]\n',
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
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
  return {
    url,
    alertsAre,
    async close() {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
