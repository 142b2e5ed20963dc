/**
 * The two Prometheus HTTP API calls gates make: GET /api/v1/alerts and an instant GET
 * /api/v1/query. Fail safe: an unreachable, slow (over the timeout) or unsuccessful Prometheus is
 * a PrometheusError, which every gate reads as closed; never as open.
 */

import { readFile } from 'node:fs/promises';

import { boundedText } from '../bounded-text.js';
import { prometheusRequests } from '../metrics/registry.js';

export class PrometheusError extends Error {
  override readonly name = 'PrometheusError';
}

export interface PrometheusSettings {
  readonly url: string;
  /** A file holding a bearer token (a projected service-account token is re-read as it rotates). */
  readonly tokenFile?: string;
  readonly timeoutMs?: number;
}

export interface Alert {
  readonly alertname: string;
  readonly state: string;
}

export type QueryResult = { kind: 'samples'; values: number[] } | { kind: 'scalar'; value: number };

const DEFAULT_TIMEOUT_MS = 5000;

export class PrometheusClient {
  /** Requests sent, for tests that count them per gate and interval. */
  requests = 0;

  constructor(private readonly settings: PrometheusSettings) {}

  async alerts(): Promise<Alert[]> {
    const data = (await this.get('/api/v1/alerts')) as { alerts?: unknown };
    if (!Array.isArray(data.alerts))
      throw new PrometheusError('Prometheus answered alerts without a list');
    const text = (value: unknown): string => (typeof value === 'string' ? value : '');
    return data.alerts.map((alert: { labels?: { alertname?: unknown }; state?: unknown }) => ({
      alertname: text(alert.labels?.alertname),
      state: text(alert.state),
    }));
  }

  async query(promql: string): Promise<QueryResult> {
    const data = (await this.get(`/api/v1/query?query=${encodeURIComponent(promql)}`)) as {
      resultType?: string;
      result?: unknown;
    };
    if (data.resultType === 'scalar' && Array.isArray(data.result)) {
      return { kind: 'scalar', value: sampleValue(data.result[1]) };
    }
    if (data.resultType === 'vector' && Array.isArray(data.result)) {
      const values = data.result.map((sample: { value?: [number, unknown] }) =>
        sampleValue(sample.value?.[1]),
      );
      return { kind: 'samples', values };
    }
    throw new PrometheusError(
      `Prometheus answered a ${data.resultType ?? 'malformed'} result, not one sample`,
    );
  }

  /** One request, counted by kind and outcome. */
  private async get(path: string): Promise<unknown> {
    const kind = path.startsWith('/api/v1/alerts') ? 'alerts' : 'query';
    try {
      const data = await this.send(path);
      prometheusRequests.inc({ kind, outcome: 'success' });
      return data;
    } catch (error) {
      prometheusRequests.inc({ kind, outcome: 'error' });
      throw error;
    }
  }

  private async send(path: string): Promise<unknown> {
    this.requests += 1;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.settings.tokenFile !== undefined) {
      const token = (await readFile(this.settings.tokenFile, 'utf8').catch(() => '')).trim();
      if (token === '') throw new PrometheusError('the Prometheus token file cannot be read');
      headers.authorization = `Bearer ${token}`;
    }
    let response: Response;
    try {
      response = await fetch(new URL(path.slice(1), withSlash(this.settings.url)), {
        headers,
        redirect: 'error',
        signal: AbortSignal.timeout(this.settings.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new PrometheusError(
        timedOut
          ? 'Prometheus did not answer in time'
          : `Prometheus unreachable: ${(error as Error).message}`,
      );
    }
    const body = (await response.json().catch(() => undefined)) as
      { status?: string; data?: unknown; error?: string } | undefined;
    if (!response.ok || body?.status !== 'success') {
      const why = body?.error ?? `HTTP ${response.status}`;
      throw new PrometheusError(`Prometheus answered an error: ${why}`);
    }
    return body.data ?? {};
  }
}

/** Go's strconv.FormatFloat, as Prometheus writes sample values: NaN, ±Inf, decimal or exponent. */
const SAMPLE_VALUE = /^(?:NaN|[+-]Inf|-?\d+(?:\.\d+)?(?:e[+-]\d+)?)$/;

/**
 * The number a sample value stands for, read as strictly as Prometheus writes it: Number() would
 * read "", " 0.001" and "0x0" as numbers and open a gate on a malformed answer. Anything else is
 * a PrometheusError, which keeps the gate closed.
 */
export function sampleValue(text: unknown): number {
  if (typeof text === 'string' && SAMPLE_VALUE.test(text)) {
    if (text === '+Inf') return Infinity;
    if (text === '-Inf') return -Infinity;
    return Number(text);
  }
  const shown = boundedText(JSON.stringify(text) ?? 'nothing', 64);
  throw new PrometheusError(`Prometheus answered a malformed sample value: ${shown}`);
}

/** `http://prom/prometheus` joined with `/api/…` keeps its path prefix. */
function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
