import type { BounceMode } from '../config.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { DirectiveCache } from '../kube/informer-directives.js';
import type { ClusterView } from '../kube/watch-view.js';
import type { Logger } from '../logger.js';
import type { Run } from '../queue/runs.js';
import type { SelectorJobData, SelectorProgress, SelectorStep } from '../queue/selector-job.js';
import type { StatusWriter } from '../status/writer.js';
import type { WakeCondition, Wakeups } from './wakeups.js';

export interface WorkflowSettings {
  pollIntervalMs: number;
  readinessTimeoutSeconds: number;
  rootCertSyncTimeoutSeconds: number;
  bounceMode: BounceMode;
  /** ALLOWED_NAMESPACES: checked again before anything is bounced; undefined allows every one. */
  allowedNamespaces?: readonly string[];
}

export interface WorkflowDeps {
  kube: KubeGateway;
  status: StatusWriter;
  log: Logger;
  settings: WorkflowSettings;
  /** Shared watch caches: directives read and wait conditions checked without an API call. */
  directives?: DirectiveCache;
  view?: ClusterView;
  /** Parked jobs woken by watch events before their delayed re-check. */
  wakeups?: Wakeups;
  /** The directive's latest run (queue/runs.ts): a job of another run is superseded. */
  latestRun?: (uid: string) => Promise<Run | undefined>;
}

/** What a step sees: the job's fixed data, its progress so far, and a way to persist progress. */
export interface StepContext {
  data: SelectorJobData;
  progress: SelectorProgress;
  deps: WorkflowDeps;
  log: Logger;
  /** Persists a progress change in the job before the caller goes on. */
  save(change: Partial<SelectorProgress>): Promise<void>;
  /** A line in the job's log, as the dashboard shows it. */
  note(message: string): Promise<void>;
}

/** A wait that is not over yet: re-checked later, failing once `timeoutSeconds` have passed. */
export interface PendingWait {
  what: string;
  timeoutSeconds: number;
  /** What a watch event must show for the job to be worth re-checking before its poll. */
  wake?: WakeCondition;
}

export type StepOutcome = { next: SelectorStep } | { wait: PendingWait };

/** How a selector job ended when it did not fail. */
export type SelectorResult =
  { outcome: 'bounced'; pods: string[] } | { outcome: 'superseded' | 'directive-deleted' };
