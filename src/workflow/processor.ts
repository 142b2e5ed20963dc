import type { Job } from 'bullmq';
import { AbortedError } from '../errors.js';
import { isPaused } from '../directive/paused.js';
import type { Directive } from '../directive/types.js';
import { selectorJobId } from '../queue/names.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import type { RunRef } from '../status/moments.js';
import type { Target } from '../status/reporter.js';
import { jobLease } from './bounce-lease.js';
import type { SelectorResult, StepContext, WorkflowDeps } from './context.js';
import {
  SpecChangedError,
  assertJobNamespacesAllowed,
  currentDirective,
  type Edited,
  type SpecChange,
} from './directive-check.js';
import { onFailure } from './failure.js';
import { stoppedAtStart } from './halt.js';
import { runSteps } from './runner.js';
import { runSummary } from './run-summary.js';
import { HeldReports } from './held-reports.js';
import { JobProgress } from './job-progress.js';
import { releaseTurn } from './next-turn.js';
import { isPastSelect } from './steps/index.js';

export type { SelectorResult } from './context.js';

/** The run a job belongs to, as the status describes it. */
export function statusRunOf(data: SelectorJobData): RunRef {
  return {
    generation: data.generation,
    ...(data.issuedAt === undefined ? {} : { issuedAt: data.issuedAt }),
    selectorIndex: data.selectorIndex,
    selectorCount: data.selectorCount,
    selector: data.selector,
  };
}

/** The directive and run a job's status writes are for. */
export function statusTargetOf(data: SelectorJobData): Target {
  // A job enqueued before runs had keys names no run: the status writer then goes by generation.
  return {
    ...data.directive,
    generation: data.generation,
    ...(data.runKey === undefined ? {} : { runKey: data.runKey }),
    selectorIndex: data.selectorIndex,
  };
}

/** The directive a job begins with, and the spec change that ends its run instead, if any. */
function begun(found: Directive | Edited): { directive: Directive; change?: SpecChange } {
  return 'edited' in found
    ? { directive: found.edited, change: found.change }
    : { directive: found };
}

/**
 * Runs one selector job as a step machine (steps/index.ts declares the order). Each step's
 * progress is in the job's data, so a re-run (after a crash, a retry or a delayed re-check)
 * resumes where the last run stopped without repeating an effect. Waits never hold the worker:
 * the job is moved to delayed and re-checked after POLL_INTERVAL_MS, or woken by a watch event.
 */
export function createSelectorProcessor(deps: WorkflowDeps) {
  return async (job: Job<SelectorJobData>, token?: string): Promise<SelectorResult> => {
    const data = job.data;
    const log = deps.log.child({
      jobId: job.id,
      directive: `${data.directive.namespace}/${data.directive.name}`,
      run: data.runKey,
      selector: data.selectorIndex,
    });
    deps.wakeups?.forget(job.id);
    // The abort mark and the latest run are read in the same round trip.
    const aborted = deps.aborts === undefined ? undefined : stoppedAtStart(deps, data);
    aborted?.catch(() => undefined);
    const found = await currentDirective(deps, data);
    if (typeof found === 'string') {
      log.info({ reason: found }, 'selector job ends without bouncing');
      await job.log(`ended without bouncing: ${found}`);
      return { outcome: found };
    }
    const { directive, change } = begun(found);
    const context = makeContext(job, deps, log, { directive, aborted, token });
    try {
      // Its spec changed and no newer run takes it over: this run bounces nothing more.
      if (change !== undefined) throw new SpecChangedError(change);
      assertJobNamespacesAllowed(deps, data, directive);
      // Before select, BOUNCING_PODS rides on the chosen pods' write (or the first wait's).
      if (isPastSelect(context.progress.step)) await context.report({ kind: 'started' });
      if (await context.isAborted()) throw new AbortedError();
      await followPause(context);
      const ended = await runSteps(context, job, token);
      await context.flush();
      if (ended !== 'done') return { outcome: ended };
      // FINISHED says more than the last batch's count; a selector before the last tells it,
      // and in a chain its next selector takes its turn to be queued.
      if (await isLastDone(context, job)) await context.report({ kind: 'finished' });
      else await Promise.all([context.settle(), releaseTurn(context)]);
      return { outcome: 'bounced', pods: (context.progress.chosen ?? []).map((pod) => pod.name) };
    } catch (error) {
      return onFailure(context, job, error, token);
    }
  };
}

/**
 * Whether this selector's end is the run's: in a chain the last selector is the last done; with
 * several in progress at once, the one whose end makes every selector of the run done. The
 * selectors it may have let go on are promoted now rather than at their re-check.
 */
async function isLastDone(context: StepContext, job: Job<SelectorJobData>): Promise<boolean> {
  const { data, deps } = context;
  if (data.order === undefined || deps.slots === undefined) {
    return data.selectorIndex === data.selectorCount - 1;
  }
  const finished = await deps.slots.finish(data);
  const ids = finished.wake.map((index) =>
    selectorJobId(data.directive.uid, data.generation, data.runKey, index),
  );
  if (ids.length > 0 && job.id !== undefined) await deps.promote?.(ids);
  return finished.done >= data.selectorCount;
}

/**
 * Notes when the directive became paused or was resumed: the wait clock does not run while
 * paused (a resume moves waitStartedAt on by the pause), and the status says Paused / resumed.
 */
async function followPause(context: StepContext): Promise<void> {
  const paused = isPaused(context.directive);
  const { pausedAt, waitStartedAt } = context.progress;
  const counts = {
    bounced: context.progress.bounced?.length ?? 0,
    chosen: context.progress.chosen?.length ?? 0,
  };
  if (paused && pausedAt === undefined) {
    await context.save({ pausedAt: Date.now() });
    context.note('paused: no pod is bounced until the directive is resumed');
    await context.report({ kind: 'paused', counts });
  } else if (!paused && pausedAt !== undefined) {
    const shifted =
      waitStartedAt === undefined ? {} : { waitStartedAt: waitStartedAt + Date.now() - pausedAt };
    await context.save({ pausedAt: undefined, ...shifted });
    context.note('resumed');
    await context.report({ kind: 'resumed', counts });
  }
}

/**
 * What this run of the job found when it began: the directive, the abort mark being read, and its
 * BullMQ lock token (what the bounce lease is held by).
 */
interface RunStart {
  directive: Directive;
  aborted: Promise<boolean> | undefined;
  token: string | undefined;
}

function makeContext(
  job: Job<SelectorJobData>,
  deps: WorkflowDeps,
  log: StepContext['log'],
  { directive, aborted, token }: RunStart,
): StepContext {
  const data = job.data;
  const target = statusTargetOf(data);
  const run = statusRunOf(data);
  const progress = new JobProgress(job, { ...data.progress });
  // The cache holds our own writes too, so its copy carries the latest resourceVersion.
  // Several selectors in progress at once: each message tells the run as it stands then.
  const reports = new HeldReports(async (moment) => {
    const alongside = await runSummary(deps, data, directive);
    const told = alongside === undefined ? run : { ...run, alongside };
    return deps.status.report(target, told, moment, deps.directives?.peek(data.directive));
  });
  let abortRead = aborted;
  return {
    data,
    get progress() {
      return progress.current;
    },
    deps,
    log,
    directive,
    save: (change) => progress.save(change),
    stage: (change) => progress.stage(change),
    flush: () => progress.flush(),
    note(message: string): void {
      log.info({ step: progress.current.step }, message);
      progress.log(`[${new Date().toISOString()}] ${progress.current.step}: ${message}`);
    },
    setPercent: (percent) => progress.setPercent(percent),
    isAborted(): Promise<boolean> {
      abortRead ??= deps.aborts?.isAborted(data) ?? Promise.resolve(false);
      return abortRead.then((value) => value === true);
    },
    effectSent(): void {
      abortRead = undefined;
    },
    report: (moment) => reports.report(moment),
    settle: () => reports.settle(),
    lease: jobLease(deps.lease, data, job.id ?? '', token),
  };
}
