/** The syntax of `spec.gates`, checked at ingest (422) as the CRD schema cannot. */

import type { Problem } from '../problem.js';
import { isRecord } from '../records.js';
import { alertNames } from './alert-names.js';
import type { Gate, GateWindow } from './types.js';
import { windowProblem } from './windows.js';

const MAX_GATES = 20;
const MAX_WINDOWS = 50;
/**
 * The longest alerts regex or query (the CRD says the same): the gate's text is quoted in the
 * Ready message and the Events, which the API server keeps short.
 */
export const MAX_GATE_TEXT = 4096;

function tooLong(value: unknown, field: string, problems: Problem[]): boolean {
  if (typeof value !== 'string' || value.length <= MAX_GATE_TEXT) return false;
  problems.push({ field, message: `must be at most ${MAX_GATE_TEXT} characters` });
  return true;
}

function checkRegex(pattern: unknown, field: string, problems: Problem[]): void {
  if (typeof pattern !== 'string' || pattern === '') {
    problems.push({ field, message: 'must be a non-empty regular expression' });
    return;
  }
  const compiled = alertNames(pattern);
  if ('problem' in compiled) {
    problems.push({
      field,
      message: `is not an RE2 regular expression (as PromQL's =~): ${compiled.problem}`,
    });
  }
}

function checkQuery(gate: Record<string, unknown>, field: string, problems: Problem[]): void {
  if (typeof gate.query !== 'string' || gate.query.trim() === '') {
    problems.push({ field: `${field}.query`, message: 'must be a PromQL expression' });
  }
  for (const bound of ['max', 'min'] as const) {
    const value = gate[bound];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
      problems.push({ field: `${field}.${bound}`, message: 'must be a number' });
    }
  }
  if (gate.max === undefined && gate.min === undefined) {
    problems.push({ field, message: 'a query gate needs max, min or both' });
  } else if (typeof gate.max === 'number' && typeof gate.min === 'number' && gate.min > gate.max) {
    problems.push({ field, message: `min ${gate.min} is above max ${gate.max}` });
  }
}

function checkWindows(windows: unknown, field: string, problems: Problem[]): void {
  if (!Array.isArray(windows) || windows.length === 0 || windows.length > MAX_WINDOWS) {
    problems.push({ field, message: `must list 1 to ${MAX_WINDOWS} windows` });
    return;
  }
  windows.forEach((window, index) => {
    const at = `${field}[${index}]`;
    if (!isRecord(window) || typeof window.start !== 'string' || typeof window.end !== 'string') {
      problems.push({ field: at, message: 'must have start and end as HH:MM' });
      return;
    }
    if (window.days !== undefined && !Array.isArray(window.days)) {
      problems.push({ field: `${at}.days`, message: 'must be a list of days' });
      return;
    }
    if (window.timeZone !== undefined && typeof window.timeZone !== 'string') {
      problems.push({ field: `${at}.timeZone`, message: 'must be an IANA time zone' });
      return;
    }
    const problem = windowProblem(window as unknown as GateWindow);
    if (problem !== undefined) problems.push({ field: at, message: problem });
  });
}

/** Problems of `spec.gates`, each naming its field. */
export function checkGates(value: unknown, field: string, problems: Problem[]): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value) || value.length > MAX_GATES) {
    problems.push({ field, message: `must be a list of at most ${MAX_GATES} gates` });
    return;
  }
  value.forEach((gate, index) => {
    const at = `${field}[${index}]`;
    const kinds = isRecord(gate) ? ['alerts', 'query', 'windows'].filter((k) => k in gate) : [];
    if (!isRecord(gate) || kinds.length !== 1) {
      problems.push({ field: at, message: 'must have exactly one of alerts, query or windows' });
      return;
    }
    const kind = kinds[0]!;
    if (kind !== 'windows' && tooLong(gate[kind], `${at}.${kind}`, problems)) return;
    if (kinds[0] === 'alerts') checkRegex(gate.alerts, `${at}.alerts`, problems);
    else if (kinds[0] === 'query') checkQuery(gate, at, problems);
    else checkWindows(gate.windows, `${at}.windows`, problems);
  });
}

/** The gates of a spec that passed checkGates, in one shape. */
export function normalizeGates(value: unknown): Gate[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.map((gate: Record<string, unknown>): Gate => {
    if ('alerts' in gate) return { alerts: gate.alerts as string };
    if ('query' in gate) {
      return {
        query: gate.query as string,
        ...(typeof gate.max === 'number' ? { max: gate.max } : {}),
        ...(typeof gate.min === 'number' ? { min: gate.min } : {}),
      };
    }
    return {
      windows: (gate.windows as GateWindow[]).map((window) => ({
        start: window.start,
        end: window.end,
        ...(window.days !== undefined ? { days: window.days } : {}),
        ...(window.timeZone !== undefined ? { timeZone: window.timeZone } : {}),
      })),
    };
  });
}
