import type { BounceMode } from '../config.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { Logger } from '../logger.js';
import type { SelectorJobData, SelectorProgress, SelectorStep } from '../queue/selector-job.js';
import type { StatusWriter } from '../status/writer.js';

export interface WorkflowSettings {
  pollIntervalMs: number;
  readinessTimeoutSeconds: number;
  rootCertSyncTimeoutSeconds: number;
  bounceMode: BounceMode;
}

export interface WorkflowDeps {
  kube: KubeGateway;
  status: StatusWriter;
  log: Logger;
  settings: WorkflowSettings;
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
}

export type StepOutcome = { next: SelectorStep } | { wait: PendingWait };
