/**
 * What `pod-bouncer status` shows of `GET /v1/directives/:ns/:name`: a header line, then one line
 * per selector with pods bounced of chosen, replacements Ready of wanted, the gate being waited on
 * and the job's state. The Ready condition's message describes the selector at work when the api
 * gives it; otherwise the line is derived from the status and the jobs.
 */

import { SUMMARY_ABOVE, inProgressOf, summaryLines, type SelectorLine } from './status-summary.js';

export interface DirectiveView {
  directive: string;
  generation?: number;
  issuedAt?: string;
  paused?: boolean;
  status: {
    state?: string;
    error?: string;
    podsBounced?: { bouncedPods?: string[] }[];
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
  jobs: { selectorIndex: number; state: string; failedReason?: string | null }[];
}

/** Counts and gate read from the Ready message, for the selector it names ("selector 2/3 …"). */
interface MessageFacts {
  index?: number;
  bounced?: [number, number];
  ready?: [number, number];
  gate?: string;
}

function pair(match: RegExpExecArray | null): [number, number] | undefined {
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

type Condition = NonNullable<DirectiveView['status']['conditions']>[number];

export function readyCondition(view: DirectiveView | undefined): Condition | undefined {
  return view?.status.conditions?.find((condition) => condition.type === 'Ready');
}

export function readyMessage(view: DirectiveView): string | undefined {
  return readyCondition(view)?.message || undefined;
}

function factsOf(message: string | undefined): MessageFacts {
  if (message === undefined) return {};
  const selector = /selector (\d+)\/\d+/.exec(message);
  const gate = /(gate .+ closed: .+$|waiting for [^;.]+|paused[^;.]*)/i.exec(message);
  return {
    ...(selector ? { index: Number(selector[1]) - 1 } : {}),
    bounced: pair(/(\d+)\/(\d+) (?:pods? )?bounced/i.exec(message)),
    ready: pair(/(\d+)\/(\d+) (?:replacements? )?(?:are )?Ready/.exec(message)),
    ...(gate?.[1] ? { gate: gate[1].trim() } : {}),
  };
}

/**
 * What a job's state says it waits for. A `waiting` job is one no worker has taken yet: the
 * workers are busy with jobs of an earlier turn (namespaces that queued fewer jobs lately, or its
 * own queued before it), or none is running, which is why a PENDING run can stay so for a while.
 */
const JOB_GATES: Record<string, string> = {
  waiting: 'queued for a free worker',
  'waiting-children': 'after the previous selector',
  delayed: 'waiting (re-checked shortly)',
  active: 'working',
  completed: 'done',
  failed: 'failed',
};

/** The Ready message describes the selector at work: its counts and gate win over the job's. */
function applyFacts(line: SelectorLine, facts: MessageFacts): void {
  if (facts.index !== line.index || line.state === 'completed' || line.state === 'failed') return;
  if (facts.bounced) [line.bounced, line.chosen] = facts.bounced;
  if (facts.ready) [line.ready, line.wanted] = facts.ready;
  if (facts.gate) line.gate = facts.gate;
}

type Job = DirectiveView['jobs'][number];

/** The jobs by selector index (the first of each), and the first failed one: read once per view. */
interface JobIndex {
  byIndex: Map<number, Job>;
  firstFailed?: number;
}

function indexJobs(view: DirectiveView): JobIndex {
  const byIndex = new Map<number, Job>();
  let firstFailed: number | undefined;
  for (const job of view.jobs) {
    if (!byIndex.has(job.selectorIndex)) byIndex.set(job.selectorIndex, job);
    if (job.state === 'failed' && (firstFailed === undefined || job.selectorIndex < firstFailed)) {
      firstFailed = job.selectorIndex;
    }
  }
  return { byIndex, ...(firstFailed !== undefined ? { firstFailed } : {}) };
}

function jobState(
  view: DirectiveView,
  jobs: JobIndex,
  index: number,
): { state: string; failedReason?: string } {
  const job = jobs.byIndex.get(index);
  if (job !== undefined) return { state: job.state, failedReason: job.failedReason || undefined };
  return { state: view.status.podsBounced?.[index] ? 'completed' : 'not queued' };
}

/** The failed selector a later one waits behind: its chain goes on only if that job is retried. */
function gateOf(jobs: JobIndex, index: number, count: number, state: string): string {
  const failed = jobs.firstFailed;
  if (state === 'waiting-children' && failed !== undefined && failed < index) {
    return `stopped: selector ${failed + 1}/${count} failed`;
  }
  return JOB_GATES[state] ?? state;
}

function selectorLine(
  view: DirectiveView,
  jobs: JobIndex,
  index: number,
  count: number,
): SelectorLine {
  const { state, failedReason } = jobState(view, jobs, index);
  const chosen = view.status.podsBounced?.[index]?.bouncedPods?.length;
  const line: SelectorLine = {
    index,
    count,
    chosen,
    gate: gateOf(jobs, index, count, state),
    state,
  };
  if (state === 'completed') line.bounced = chosen ?? 0;
  if (state === 'failed') line.gate = failedReason || view.status.error || 'failed';
  applyFacts(line, factsOf(readyMessage(view)));
  return line;
}

export function selectorLines(view: DirectiveView): SelectorLine[] {
  const count = Math.max(
    view.jobs.reduce((most, job) => Math.max(most, job.selectorIndex + 1), 0),
    view.status.podsBounced?.length ?? 0,
  );
  const jobs = indexJobs(view);
  return Array.from({ length: count }, (_, index) => selectorLine(view, jobs, index, count));
}

function fraction(done: number | undefined, total: number | undefined): string {
  return `${done ?? '-'}/${total ?? '-'}`;
}

function bar(done: number | undefined, total: number | undefined, width = 10): string {
  const filled = total ? Math.round((Math.min(done ?? 0, total) / total) * width) : 0;
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

function headerLine(view: DirectiveView): string {
  const parts = [view.directive, view.status.state ?? 'no run yet'];
  if (view.generation !== undefined) parts.push(`generation ${view.generation}`);
  if (view.issuedAt) parts.push(`issued ${view.issuedAt}`);
  if (view.paused) parts.push('PAUSED');
  const detail = view.status.error || readyMessage(view);
  return `${parts.join('  ')}${detail ? `  — ${detail}` : ''}`;
}

/**
 * The lines to print; `bars` only on a terminal. A run of more than SUMMARY_ABOVE selectors is
 * summarized (its selectors in progress listed) unless `all` asks for every line.
 */
export function renderStatus(view: DirectiveView, bars: boolean, all = false): string[] {
  const selectors = selectorLines(view);
  const render = (line: SelectorLine): string => {
    const label = `selector ${line.index + 1}/${line.count}`;
    const bounced = `bounced ${fraction(line.bounced, line.chosen)}`;
    // A completed selector's wait was met, whatever its count was.
    const met = line.state === 'completed' && line.wanted === undefined;
    const ready = `ready ${met ? 'ok' : fraction(line.ready, line.wanted)}`;
    if (!bars) return `${label}  ${bounced}  ${ready}  ${line.state}  ${line.gate}`;
    const readyBar = met ? bar(1, 1, 6) : bar(line.ready, line.wanted, 6);
    return `${label}  ${bar(line.bounced, line.chosen)} ${bounced}  ${readyBar} ${ready}  ${line.state}  ${line.gate}`;
  };
  if (!all && selectors.length > SUMMARY_ABOVE) {
    return [
      headerLine(view),
      ...summaryLines(selectors, render, inProgressOf(readyCondition(view)?.message)),
    ];
  }
  return [headerLine(view), ...selectors.map(render)];
}

/** A run is over when FINISHED or FAILED. */
export function finalState(view: DirectiveView): 'FINISHED' | 'FAILED' | undefined {
  const state = view.status.state;
  return state === 'FINISHED' || state === 'FAILED' ? state : undefined;
}
