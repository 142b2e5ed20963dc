import type { Job } from 'bullmq';
import { disallowedNamespaces, namespacesOf, outsideAllowedMessage } from '../directive/bounds.js';
import { NotFoundError, PermanentError } from '../errors.js';
import type { Directive } from '../directive/types.js';
import { holdsRunsSpec, isRunsDirective } from '../queue/run-identity.js';
import { isLatest } from '../queue/runs.js';
import { runOfJob, type SelectorJobData } from '../queue/selector-job.js';
import type { SelectorResult, WorkflowDeps } from './context.js';

/**
 * The job's directive, of whatever generation it is now, or why it no longer exists for this job
 * (deleted, or re-created under its name: another uid).
 */
async function readDirective(
  source: Pick<WorkflowDeps['kube'], 'getDirective'>,
  data: SelectorJobData,
): Promise<Directive | 'superseded' | 'directive-deleted'> {
  try {
    const directive = await source.getDirective(data.directive);
    return isRunsDirective(directive, runOfJob(data)) ? directive : 'superseded';
  } catch (error) {
    if (error instanceof NotFoundError) return 'directive-deleted';
    throw error;
  }
}

/** False when a newer run of the directive (a new generation or a later issuedAt) was accepted. */
async function isLatestRun(deps: WorkflowDeps, data: SelectorJobData): Promise<boolean> {
  if (deps.latestRun === undefined) return true;
  const run = await deps.latestRun(data.directive.uid);
  return isLatest(run, data);
}

/** The directive as the API server has it now (of whatever generation), never from a cache. */
export function freshDirective(
  deps: Pick<WorkflowDeps, 'kube'>,
  data: SelectorJobData,
): Promise<Directive | 'superseded' | 'directive-deleted'> {
  return readDirective(deps.kube, data);
}

/** A spec changed with no run to take it over: of which generation, and when its run starts. */
export interface SpecChange {
  generation: number;
  /** Controller mode, the run budget spent: when MAX_RUNS_PER_HOUR lets its run start. */
  startsAt?: Date;
}

/**
 * Whether a spec changed since the run began is a newer run's business. In controller mode the
 * edit itself starts a run (DESIGN §4), at once while the run budget allows one: this run is
 * superseded. With MAX_RUNS_PER_HOUR spent, the edit's run is refused until later (TooManyRuns),
 * and this run, whose spec is no longer the directive's, must end and say so. In event mode a run
 * accepted meanwhile supersedes this one; else nobody will run the new spec.
 */
async function changeVerdict(
  deps: WorkflowDeps,
  data: SelectorJobData,
  generation: number,
): Promise<'superseded' | SpecChange> {
  if (deps.settings.watchDirectives === true) {
    const waitMs = await deps.runBudgetWait?.(data.directive);
    if (waitMs === undefined) return 'superseded';
    // The edit's run may have been accepted (spending the budget) since this job last looked.
    if (!(await isLatestRun(deps, data))) return 'superseded';
    // Whole seconds, rounded up: the moment the controller tries it again, not before.
    return { generation, startsAt: new Date(Math.ceil((Date.now() + waitMs) / 1000) * 1000) };
  }
  await inlineApplySettled(deps, data);
  return (await isLatestRun(deps, data)) ? { generation } : 'superseded';
}

/** How long an edit's verdict waits at most for an inline apply in progress to claim its run. */
const INLINE_APPLY_WAIT_MS = 2000;
const INLINE_APPLY_POLL_MS = 25;

/**
 * An inline event applies its spec before it claims its run (DESIGN §2): a job that sees the new
 * generation in that moment would fail its run for an edit that a newer run is about to take
 * over, and tell a failure that never was. So it waits, briefly, for such an apply to settle.
 */
async function inlineApplySettled(deps: WorkflowDeps, data: SelectorJobData): Promise<void> {
  if (deps.inlineApplyHeldFor === undefined) return;
  const deadline = Date.now() + INLINE_APPLY_WAIT_MS;
  while (Date.now() < deadline && (await deps.inlineApplyHeldFor(data.directive)) > 0) {
    await new Promise((resolve) => setTimeout(resolve, INLINE_APPLY_POLL_MS));
  }
}

/**
 * The directive this job works for, or why it no longer exists for this job. A job whose
 * (generation, runKey) is not the latest run's is superseded. The watch cache answers the common
 * case; a cache that says "deleted" or shows another generation may just be behind (a generation
 * accepted a moment ago), so that answer is confirmed with the API server before the job gives
 * up. A directive whose spec changed with no newer run to take it over is answered as it is now,
 * with the change (`Edited`), which then fails the run (`SpecChangedError`).
 */
export async function currentDirective(
  deps: WorkflowDeps,
  data: SelectorJobData,
): Promise<Directive | 'superseded' | 'directive-deleted' | Edited> {
  if (!(await isLatestRun(deps, data))) return 'superseded';
  const run = runOfJob(data);
  const cached = deps.directives && (await readDirective(deps.directives, data));
  if (typeof cached === 'object' && holdsRunsSpec(cached, run)) return cached;
  const fresh = await freshDirective(deps, data);
  if (typeof fresh === 'string' || holdsRunsSpec(fresh, run)) return fresh;
  const verdict = await changeVerdict(deps, data, fresh.metadata.generation);
  return verdict === 'superseded' ? verdict : { edited: fresh, change: verdict };
}

/** The directive of a newer generation than the job's, whose spec no run takes over yet. */
export interface Edited {
  edited: Directive;
  change: SpecChange;
}

/** The directive as the API server has it, when it is still the job's (same uid). */
async function apiCopy(
  deps: Pick<WorkflowDeps, 'kube'>,
  data: SelectorJobData,
): Promise<Directive | undefined> {
  const found = await freshDirective(deps, data);
  return typeof found === 'string' ? undefined : found;
}

/**
 * How the job's directive moved since the run began, asked before every batch (DESIGN §4: a
 * directive deleted mid-run ends its chain quietly; a newer run supersedes the older one): deleted
 * (or re-created under its name), superseded, a spec changed with no run to take it over yet, or
 * undefined when it is still the run's. The watch cache answers while it holds the uid, at no cost
 * (a cache behind shows the run's generation: one batch more at most, as for a deletion); a cache
 * that does not may just be behind, so the API server confirms.
 */
export async function directiveMoved(
  deps: WorkflowDeps,
  data: SelectorJobData,
): Promise<'directive-deleted' | 'superseded' | SpecChange | undefined> {
  const run = runOfJob(data);
  const cached = deps.directives?.peek(data.directive);
  const seen =
    cached !== undefined && isRunsDirective(cached, run) ? cached : await apiCopy(deps, data);
  if (seen === undefined) return 'directive-deleted';
  if (holdsRunsSpec(seen, run)) return undefined;
  return changeVerdict(deps, data, seen.metadata.generation);
}

/**
 * A NotFound in mid-run (typically the status write) may mean the directive was deleted or
 * replaced after a cache answered for it: ask the API server itself, and end quietly if so
 * instead of failing a chain nobody wants any more.
 */
export async function endedMidRun(
  deps: WorkflowDeps,
  job: Job<SelectorJobData>,
  error: unknown,
  log: WorkflowDeps['log'],
): Promise<SelectorResult | undefined> {
  if (!(error instanceof NotFoundError)) return undefined;
  const found = await freshDirective(deps, job.data).catch(() => undefined);
  // A newer generation of the same directive is no NotFound's cause: the job goes on to fail.
  const result = typeof found === 'object' ? undefined : found;
  if (result === undefined) return undefined;
  log.info({ reason: result }, 'selector job ends: the directive changed mid-run');
  await job.log(`ended mid-run: ${result}`);
  return { outcome: result };
}

/**
 * The directive's spec changed during the run and no newer run takes it over (event mode, no
 * event sent for it; controller mode, its run held back by MAX_RUNS_PER_HOUR): this run's spec is
 * no longer what the directive says, so it bounces nothing more and ends FAILED, telling how (or
 * when) the new spec runs. Terminal: a retry meets the same spec.
 */
export class SpecChangedError extends PermanentError {
  constructor({ generation, startsAt }: SpecChange) {
    const next =
      startsAt === undefined
        ? 'send an event to start a run of it'
        : `its run waits for MAX_RUNS_PER_HOUR and starts at ${startsAt.toISOString().replace('.000Z', 'Z')}`;
    super(`the directive's spec changed (generation ${generation}) during the run; ${next}`);
  }
}

/** A selector outside ALLOWED_NAMESPACES: terminal, the job fails with this cause. */
export class NamespaceNotAllowedError extends PermanentError {
  constructor(namespaces: string[]) {
    super(`${outsideAllowedMessage(namespaces)}; nothing was bounced`, 403);
  }
}

/**
 * The worker's own check of ALLOWED_NAMESPACES before it bounces: the directive's own namespace,
 * the job's selector as enqueued, and the same selector of the spec the cluster holds now (a
 * directive's status and Events are written where it lives). Ingest refused such events already;
 * this catches jobs enqueued under another setting and specs edited in the cluster.
 */
export function assertJobNamespacesAllowed(
  deps: WorkflowDeps,
  data: SelectorJobData,
  directive: Directive,
): void {
  const allowed = deps.settings.allowedNamespaces;
  if (allowed === undefined) return;
  const selectors = [data.selector, directive.spec.podsToBounce[data.selectorIndex]];
  const namespaces = [
    directive.metadata.namespace,
    ...selectors.flatMap((selector) =>
      selector === undefined ? [] : [...namespacesOf({ podsToBounce: [selector] })],
    ),
  ];
  const outside = disallowedNamespaces(namespaces, allowed);
  if (outside.length > 0) throw new NamespaceNotAllowedError(outside);
}
