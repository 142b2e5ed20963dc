/**
 * Verdicts on gates, shared by every job of the process: a verdict is reused while it is younger
 * than the interval, and jobs asking for the same gate at once share one request, so Prometheus
 * gets at most one request per distinct gate per interval per process.
 */

import { gateVerdicts } from '../metrics/registry.js';
import { plainText } from '../plain-text.js';
import { alertNames } from './alert-names.js';
import { PrometheusClient, PrometheusError, type QueryResult } from './prometheus.js';
import {
  describeGate,
  kindOf,
  type Gate,
  type GateKind,
  type GatesConfig,
  type QueryGate,
  type Verdict,
} from './types.js';
import { insideAnyWindow } from './windows.js';

export interface GateJudgeSettings {
  readonly intervalMs: number;
  /** Undefined: no PROMETHEUS_URL (ingest refuses alerts and query gates then). */
  readonly prometheus: PrometheusClient | undefined;
  readonly now?: () => number;
}

/** One gate's verdict with its name and kind; `why` when closed. */
export interface NamedVerdict {
  gate: Gate;
  name: string;
  kind: GateKind;
  open: boolean;
  why?: string;
}

/** The first closed gate, named, or open when all are. */
export type GatesVerdict = { open: true } | { open: false; gate: Gate; name: string; why: string };

/** The judge of a process, from its configuration (PROMETHEUS_URL, its token file, the interval). */
export function judgeOf(config: GatesConfig): GateJudge {
  const { prometheusUrl: url, prometheusTokenFile: tokenFile } = config;
  return new GateJudge({
    intervalMs: config.intervalSeconds * 1000,
    prometheus:
      url === undefined
        ? undefined
        : new PrometheusClient({ url, ...(tokenFile === undefined ? {} : { tokenFile }) }),
  });
}

interface Cached {
  at: number;
  verdict: Promise<Verdict>;
}

export class GateJudge {
  private readonly cache = new Map<string, Cached>();
  private readonly now: () => number;

  constructor(private readonly settings: GateJudgeSettings) {
    this.now = settings.now ?? Date.now;
  }

  /** Evaluates the gates in order; the first closed one is the verdict. */
  async judge(gates: readonly Gate[]): Promise<GatesVerdict> {
    const verdicts = await this.verdicts(gates);
    for (const verdict of verdicts) {
      gateVerdicts.inc({ kind: verdict.kind, verdict: verdict.open ? 'open' : 'closed' });
    }
    const closed = verdicts.find((verdict) => !verdict.open);
    if (closed === undefined) return { open: true };
    return { open: false, gate: closed.gate, name: closed.name, why: closed.why ?? '' };
  }

  /**
   * Every gate's verdict, named, in order (what a dry run shows). Its texts carry what Prometheus
   * sent (alert names, error texts) and the gate's own regex or query: they go into the Ready
   * message, Events and notifications, so they lose their control characters here (`plainText`).
   */
  async verdicts(gates: readonly Gate[]): Promise<NamedVerdict[]> {
    const verdicts = await Promise.all(gates.map((gate) => this.verdictOf(gate)));
    return gates.map((gate, index) => {
      const verdict = verdicts[index]!;
      const named = { gate, name: plainText(describeGate(gate)), kind: kindOf(gate) };
      if (verdict.open) return { ...named, open: true };
      return { ...named, open: false, why: plainText(verdict.why) };
    });
  }

  private verdictOf(gate: Gate): Promise<Verdict> {
    // Windows ask only the clock: judged afresh every time.
    if ('windows' in gate) {
      return Promise.resolve(
        insideAnyWindow(gate.windows, new Date(this.now()))
          ? { open: true }
          : { open: false, why: 'outside its windows' },
      );
    }
    const key = JSON.stringify(gate);
    const now = this.now();
    const cached = this.cache.get(key);
    if (cached !== undefined && now - cached.at < this.settings.intervalMs) return cached.verdict;
    const verdict = this.ask(gate).catch((error: unknown) => ({
      open: false as const,
      why:
        error instanceof PrometheusError
          ? error.message
          : `Prometheus unreachable: ${String(error)}`,
    }));
    this.cache.set(key, { at: now, verdict });
    this.forgetOld(now);
    return verdict;
  }

  private async ask(gate: Exclude<Gate, { windows: unknown }>): Promise<Verdict> {
    const prometheus = this.settings.prometheus;
    if (prometheus === undefined) return { open: false, why: 'PROMETHEUS_URL is not set' };
    if ('alerts' in gate) {
      const pattern = alertNames(gate.alerts);
      // Ingest and start-up refuse what RE2 does not compile; a run accepted before fails safe.
      if ('problem' in pattern) return { open: false, why: `not an RE2 regex: ${pattern.problem}` };
      const firing = (await prometheus.alerts())
        .filter((alert) => alert.state === 'firing' && pattern.matches(alert.alertname))
        .map((alert) => alert.alertname);
      if (firing.length === 0) return { open: true };
      const names = [...new Set(firing)].sort();
      return {
        open: false,
        why: `firing: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`,
      };
    }
    return withinBounds(gate, await prometheus.query(gate.query));
  }

  /** Keeps the cache to the gates asked about recently. */
  private forgetOld(now: number): void {
    if (this.cache.size < 1000) return;
    for (const [key, cached] of this.cache) {
      if (now - cached.at >= this.settings.intervalMs) this.cache.delete(key);
    }
  }
}

/** One sample (or a scalar) within the query gate's bounds, inclusive. */
function withinBounds(gate: QueryGate, result: QueryResult): Verdict {
  const values = result.kind === 'scalar' ? [result.value] : result.values;
  if (values.length !== 1) {
    const why =
      values.length === 0
        ? 'the query gave no sample'
        : `the query gave ${values.length} samples, not one`;
    return { open: false, why };
  }
  const value = values[0]!;
  // Not a number, or an infinity (a division by zero): closed whatever the bounds, named as
  // Prometheus writes it.
  if (Number.isNaN(value)) return { open: false, why: 'the query gave NaN' };
  if (!Number.isFinite(value))
    return { open: false, why: `the query gave ${value > 0 ? '+' : '-'}Inf` };
  if (gate.max !== undefined && value > gate.max)
    return { open: false, why: `${value} is above ${gate.max}` };
  if (gate.min !== undefined && value < gate.min)
    return { open: false, why: `${value} is below ${gate.min}` };
  return { open: true };
}
