import type { PodSelector } from '../directive/types.js';
import type { StatusRun } from '../queue/run-identity.js';

// How a run and its counts read in the Ready message and in `pod-bouncer status`: one line a
// person reads in `kubectl get pbd`.

/** The run a selector job belongs to, as the status describes it. */
export interface RunRef extends StatusRun {
  selectorIndex: number;
  selectorCount: number;
  selector: Pick<PodSelector, 'namespace' | 'labels'>;
  /** The run around this selector, when several of its selectors may be in progress at once. */
  alongside?: RunSummary;
}

/** A run's selectors done and in progress, and the oldest in progress (the lowest index). */
export interface RunSummary {
  done: number;
  inProgress: number;
  oldest?: { index: number; selector: Pick<PodSelector, 'namespace' | 'labels'> };
}

/** The Ready message of a run with many selectors in progress stays one line a person reads. */
const SUMMARY_MAX = 300;

/** Where a selector's bouncing stands: pods bounced of chosen, replacements Ready of wanted. */
export interface Counts {
  bounced: number;
  chosen: number;
  ready?: number;
  wanted?: number;
}

/** "selector 2/3 (bookinfo app=reviews)" */
export function selectorLabel(run: RunRef): string {
  return `selector ${run.selectorIndex + 1}/${run.selectorCount} (${whereOf(run.selector)})`;
}

function whereOf(selector: RunRef['selector']): string {
  const labels = Object.entries(selector.labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  return labels === '' ? selector.namespace : `${selector.namespace} ${labels}`;
}

/**
 * "120/1000 selectors done, 50 in progress, 830 waiting; oldest in progress: selector 171
 * (mesh-3 app=reviews); selector 230: 1/3 bounced", cut to SUMMARY_MAX: while more than one
 * selector is in progress, no single selector's line tells what the run is doing.
 */
function summaryLine(run: RunRef, summary: RunSummary, message: string): string {
  const waiting = Math.max(0, run.selectorCount - summary.done - summary.inProgress);
  const parts = [
    `${summary.done}/${run.selectorCount} selectors done, ${summary.inProgress} in progress, ${waiting} waiting`,
  ];
  if (summary.oldest !== undefined) {
    parts.push(
      `oldest in progress: selector ${summary.oldest.index + 1} (${whereOf(summary.oldest.selector)})`,
    );
  }
  parts.push(`selector ${run.selectorIndex + 1}: ${message}`);
  const line = parts.join('; ');
  return line.length <= SUMMARY_MAX ? line : `${line.slice(0, SUMMARY_MAX - 1)}…`;
}

/** A selector's own message, or the run's summary while several selectors are in progress. */
export function messageOf(run: RunRef, message: string): string {
  const summary = run.alongside;
  if (summary === undefined || summary.inProgress <= 1) return `${selectorLabel(run)}: ${message}`;
  return summaryLine(run, summary, message);
}

/** "4/10 bounced, 2/4 replacements Ready" */
export function countsLabel(counts: Counts): string {
  const bounced = `${counts.bounced}/${counts.chosen} bounced`;
  if (counts.wanted === undefined || counts.wanted === 0) return bounced;
  return `${bounced}, ${counts.ready ?? 0}/${counts.wanted} replacements Ready`;
}
