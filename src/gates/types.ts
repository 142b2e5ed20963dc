/** The gates of DESIGN §4: what must hold before any batch is sent. */

export const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
export type Day = (typeof DAYS)[number];

/** Open inside the window: from `start` on one of `days` until `end` (exclusive), in `timeZone`. */
export interface GateWindow {
  /** The days on which the window opens; default every day. */
  days?: Day[];
  /** `HH:MM`. */
  start: string;
  /** `HH:MM`, exclusive; `24:00` allowed; before `start`, the window crosses midnight. */
  end: string;
  /** An IANA zone; default UTC. */
  timeZone?: string;
}

export interface AlertsGate {
  /** Closed while a firing alert's name matches this RE2 regex as a whole (PromQL's `=~`). */
  alerts: string;
}

export interface QueryGate {
  /** An instant PromQL query that must give exactly one sample within the bounds. */
  query: string;
  max?: number;
  min?: number;
}

export interface WindowsGate {
  windows: GateWindow[];
}

export type Gate = AlertsGate | QueryGate | WindowsGate;

/** The installation's gates and the Prometheus they ask, as the environment sets them. */
export interface GatesConfig {
  /** PROMETHEUS_URL: alerts and query gates need it. */
  readonly prometheusUrl: string | undefined;
  readonly prometheusTokenFile: string | undefined;
  /** GATE_ALERTS and GATE_WINDOWS: the gates every directive gets. */
  readonly installation: readonly Gate[];
  readonly intervalSeconds: number;
  readonly timeoutSeconds: number;
}

/** A gate's verdict: open, or closed with the reason a person reads in the Ready message. */
export type Verdict = { open: true } | { open: false; why: string };

/** How a gate is named in messages and errors: `alerts "X|Y"`, `query "…"`, `windows Mon-Fri …`. */
export function describeGate(gate: Gate): string {
  if ('alerts' in gate) return `alerts ${JSON.stringify(gate.alerts)}`;
  if ('query' in gate) return `query ${JSON.stringify(gate.query)}`;
  return `windows ${gate.windows.map(describeWindow).join('; ')}`;
}

export function describeWindow(window: GateWindow): string {
  const days =
    window.days === undefined || window.days.length === 7 ? '' : `${window.days.join(',')} `;
  return `${days}${window.start}-${window.end} ${window.timeZone ?? 'UTC'}`;
}

export type GateKind = 'alerts' | 'query' | 'windows';

/** The kind of a gate: the label of its metrics. */
export function kindOf(gate: Gate): GateKind {
  if ('alerts' in gate) return 'alerts';
  return 'query' in gate ? 'query' : 'windows';
}

/** Gates that ask Prometheus (alerts, query), as opposed to windows, which ask only the clock. */
export function needsPrometheus(gate: Gate): boolean {
  return 'alerts' in gate || 'query' in gate;
}
