import { isPaused } from '../directive/paused.js';
import type { BounceMode, Directive, ObjectRef } from '../directive/types.js';
import type { MaxUnavailable } from '../directive/max-unavailable.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { DirectiveCache } from '../kube/informer-directives.js';
import type { ClusterView } from '../kube/watch-view.js';
import type { Logger } from '../logger.js';
import type { DirectiveName } from '../queue/names.js';
import type { NamespaceTurns } from '../queue/namespace-turns.js';
import { isRunsDirective } from '../queue/run-identity.js';
import type { Run } from '../queue/runs.js';
import { runOfJob, type SelectorJobData, type SelectorProgress } from '../queue/selector-job.js';
import type { Counts, Moment } from '../status/moments.js';
import type { StatusReporter } from '../status/reporter.js';
import type { GateJudge } from '../gates/judge.js';
import type { Gate } from '../gates/types.js';
import type { BounceLease, JobLease } from './bounce-lease.js';
import type { AbortFlags } from './run-control.js';
import type { SentPods } from './sent-pods.js';
import type { SelectorSlots } from './selector-slots.js';
import type { WakeCondition, Wakeups } from './wakeups.js';

export interface WorkflowSettings {
  pollIntervalMs: number;
  readinessTimeoutSeconds: number;
  rootCertSyncTimeoutSeconds: number;
  /** A selector's bounceMode when it sets none. */
  bounceMode: BounceMode;
  /** ALLOWED_NAMESPACES: checked again before anything is bounced; undefined allows every one. */
  allowedNamespaces?: readonly string[];
  /** A selector's maxUnavailable when it sets none. */
  defaultMaxUnavailable: MaxUnavailable;
  /** A selector's soakSeconds when it sets none (DEFAULT_SOAK_SECONDS). */
  defaultSoakSeconds?: number;
  /** GATE_ALERTS and GATE_WINDOWS: gates every directive gets. */
  installationGates?: readonly Gate[];
  /** GATE_INTERVAL_SECONDS: how often a closed gate is evaluated again. */
  gateIntervalSeconds?: number;
  /** GATE_TIMEOUT_SECONDS: how long an alerts or query gate may stay closed. */
  gateTimeoutSeconds?: number;
  /**
   * WATCH_DIRECTIVES: an edit of a directive starts its run, which supersedes the one going (at
   * once while MAX_RUNS_PER_HOUR allows it: `runBudgetWait`).
   */
  watchDirectives?: boolean;
}

export interface WorkflowDeps {
  kube: KubeGateway;
  /** Every status write goes through here: steps report moments, not patches. */
  status: StatusReporter;
  log: Logger;
  settings: WorkflowSettings;
  /** Shared watch caches: directives read and wait conditions checked without an API call. */
  directives?: DirectiveCache;
  view?: ClusterView;
  /** Parked jobs woken by watch events before their delayed re-check. */
  wakeups?: Wakeups;
  /** The directive's latest run (queue/runs.ts): a job of another run is superseded. */
  latestRun?: (uid: string) => Promise<Run | undefined>;
  /** The ms until MAX_RUNS_PER_HOUR lets the directive start one more run; undefined: it may now. */
  runBudgetWait?: (directive: DirectiveName) => Promise<number | undefined>;
  /** How long (ms) an inline apply in progress may still hold the directive; 0 when none is. */
  inlineApplyHeldFor?: (ref: ObjectRef) => Promise<number>;
  /** Runs aborted by an operator (a Redis key per run). */
  aborts?: AbortFlags;
  /** Verdicts on gates, shared by the process's jobs; absent: gates are judged without Prometheus. */
  gates?: GateJudge;
  /** The directives' bounce leases: one run bounces at a time per directive. */
  lease?: BounceLease;
  /** The pods the directive's runs bounced lately: a newer run counts an older one's as down. */
  sent?: SentPods;
  /** The order of runs with maxConcurrentSelectors > 1 (done, in progress, parked selectors). */
  slots?: SelectorSlots;
  /** Promotes delayed jobs by id now (a parked selector that may go on); errors are ignored. */
  promote?: (jobIds: string[]) => Promise<void>;
  /** Retries the failed jobs by id (the selectors a halt stopped, when it is withdrawn). */
  retryFailed?: (jobIds: string[]) => Promise<void>;
  /** Each job's turn in its directive's namespace when it is queued again: its priority. */
  turns?: NamespaceTurns;
}

/** What a step sees: the job's fixed data, its progress so far, and a way to persist progress. */
export interface StepContext {
  data: SelectorJobData;
  progress: SelectorProgress;
  deps: WorkflowDeps;
  log: Logger;
  /** The directive as read when this run of the job began (from the watch cache when synced). */
  directive: Directive;
  /** Persists a progress change in the job (with anything staged) before the caller goes on. */
  save(change: Partial<SelectorProgress>): Promise<void>;
  /**
   * Changes the progress in memory only: the next `save` or `flush` writes it. For what precedes
   * no effect, and what a re-run after a crash can redo (`job-progress.ts`).
   */
  stage(change: Partial<SelectorProgress>): void;
  /** Writes whatever is staged (progress, log lines, percentage) in one round. */
  flush(): Promise<void>;
  /** A line in the job's log, as the dashboard shows it; written with the next write. */
  note(message: string): void;
  /** The dashboard's percentage of the job, written with the next write. */
  setPercent(percent: number): void;
  /**
   * Whether an operator aborted the run. Read from Redis when this run of the job begins and again
   * after each effect (`effectSent`), not before every batch: nothing else changes in between.
   */
  isAborted(): Promise<boolean>;
  /** A bounce or a restart went out: the next `isAborted` reads the mark again. */
  effectSent(): void;
  /**
   * This job's hold on its directive's bounce lease (`bounce-lease.ts`), taken around the choice
   * of pods and every batch sent (`steps/under-lease.ts`).
   */
  lease: JobLease;
  /** Tells the status what happened; the status decides what to write. */
  report(moment: Moment): Promise<'written' | 'unchanged' | 'stale' | 'gone' | 'deferred'>;
  /** Reports what is still held (a batch sent with nothing after it): the job's work is done. */
  settle(): Promise<void>;
}

/** A wait that is not over yet: re-checked later, failing once `timeoutSeconds` have passed. */
export interface PendingWait {
  /** What the wait is for, in full (the job log, a timeout's error). */
  what: string;
  /** The same, short, as the Ready condition's message says it ("root cert sync (ConfigMap differs)"). */
  status?: string;
  /** Where the selector stands, for the message. */
  counts?: Counts;
  /** A wait with no timeout (the pause: it ends when a person lifts it). */
  timeoutSeconds: number | undefined;
  /** What a watch event must show for the job to be worth re-checking before its poll. */
  wake?: WakeCondition;
  /** A closed gate: the status says Gated and names it. */
  gate?: { name: string; why: string };
  /** Names the wait the clock times, when a change of wait must start a fresh clock (a gate's). */
  clock?: string;
  /** The error when the wait times out, instead of "timed out after …". */
  timeoutMessage?: string;
  /** When to look again (ms), instead of POLL_INTERVAL_MS. */
  recheckMs?: number;
  /** Not told to the status (a wait hundreds of a run's selectors share: the summary tells it). */
  quiet?: boolean;
}

/**
 * What a step says when it returns: done (the runner goes to the next step), not yet (wait), or
 * the run no longer exists for this job (superseded or deleted: nothing more is bounced).
 */
export type StepOutcome =
  { done: true } | { wait: PendingWait } | { end: 'superseded' | 'directive-deleted' };

export const DONE: StepOutcome = { done: true };

/** How a selector job ended when it did not fail. */
export type SelectorResult =
  { outcome: 'bounced'; pods: string[] } | { outcome: 'superseded' | 'directive-deleted' };

/**
 * Whether the directive is paused right now: the watch cache's copy when it has one (it follows
 * the annotation within a watch event), else the copy read when this run of the job began.
 */
export function pausedNow(context: StepContext): boolean {
  const cached = context.deps.directives?.peek(context.data.directive);
  const directive =
    cached !== undefined && isRunsDirective(cached, runOfJob(context.data))
      ? cached
      : context.directive;
  return isPaused(directive);
}
