import type { Job } from 'bullmq';
import { disallowedNamespaces, namespacesOf, outsideAllowedMessage } from '../directive/bounds.js';
import { NotFoundError, PermanentError } from '../errors.js';
import type { Directive } from '../directive/types.js';
import { isLatest } from '../queue/runs.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import type { SelectorResult, WorkflowDeps } from './context.js';

/** The directive this job works for, or why it no longer exists for this job. */
async function readDirective(
  source: Pick<WorkflowDeps['kube'], 'getDirective'>,
  data: SelectorJobData,
): Promise<Directive | 'superseded' | 'directive-deleted'> {
  try {
    const directive = await source.getDirective(data.directive);
    const { uid, generation } = directive.metadata;
    if (uid !== data.directive.uid || generation !== data.generation) return 'superseded';
    return directive;
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

/** The directive as the API server has it now, never from a cache. */
export function freshDirective(
  deps: Pick<WorkflowDeps, 'kube'>,
  data: SelectorJobData,
): Promise<Directive | 'superseded' | 'directive-deleted'> {
  return readDirective(deps.kube, data);
}

/**
 * The directive this job works for, or why it no longer exists for this job. A job whose
 * (generation, runKey) is not the latest run's is superseded. The watch cache answers the common
 * case; a cache that says "superseded" or "deleted" may just be behind (a generation accepted a
 * moment ago), so that answer is confirmed with the API server before the job gives up.
 */
export async function currentDirective(
  deps: WorkflowDeps,
  data: SelectorJobData,
): Promise<Directive | 'superseded' | 'directive-deleted'> {
  if (!(await isLatestRun(deps, data))) return 'superseded';
  if (deps.directives === undefined) return freshDirective(deps, data);
  const cached = await readDirective(deps.directives, data);
  return typeof cached === 'string' ? freshDirective(deps, data) : cached;
}

/** Whether the API server itself no longer has the job's directive (deleted, or another uid). */
async function goneFromApi(
  deps: Pick<WorkflowDeps, 'kube'>,
  data: SelectorJobData,
): Promise<boolean> {
  try {
    return (await deps.kube.getDirective(data.directive)).metadata.uid !== data.directive.uid;
  } catch (error) {
    if (error instanceof NotFoundError) return true;
    throw error;
  }
}

/**
 * Whether the job's directive was deleted (or re-created under its name: another uid), asked
 * before every batch (DESIGN §4: a directive deleted mid-run ends its chain quietly). The watch
 * cache answers while it holds the uid, at no cost; a cache that does not may just be behind, so
 * the API server confirms before the job gives up (as `currentDirective` does).
 */
export async function directiveGone(deps: WorkflowDeps, data: SelectorJobData): Promise<boolean> {
  if (deps.directives?.peek(data.directive)?.metadata.uid === data.directive.uid) return false;
  return goneFromApi(deps, data);
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
  const result = await freshDirective(deps, job.data).catch(() => undefined);
  if (typeof result !== 'string') return undefined;
  log.info({ reason: result }, 'selector job ends: the directive changed mid-run');
  await job.log(`ended mid-run: ${result}`);
  return { outcome: result };
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
