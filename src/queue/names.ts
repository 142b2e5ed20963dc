import type { PodSelector } from '../directive/types.js';
import { runTag, type RunId } from './run-identity.js';
import type { SelectorJobData } from './selector-job.js';

/** The one queue every selector job goes through; keys live under QUEUE_PREFIX. */
export const QUEUE_NAME = 'bounce';

/**
 * Deterministic, colon-free job id: the same run (directive uid, generation, runKey) always maps
 * to the same jobs, so a repeated event cannot create a second chain.
 */
export function selectorJobId(
  uid: string,
  generation: number,
  runKey: string,
  selectorIndex: number,
): string {
  return `${runTag({ uid, generation, runKey })}.s${selectorIndex}`;
}

/**
 * A run's job ids in selector order: all that a stored answer needs to give them again is the run
 * and its selector count.
 */
export function runJobIds(run: RunId, selectors: number): string[] {
  return Array.from({ length: selectors }, (_, index) =>
    selectorJobId(run.uid, run.generation, run.runKey, index),
  );
}

/** Job name: which directive, which of its selectors, and the pods it selects. */
export function selectorJobName(
  directive: string,
  selectorIndex: number,
  selector: PodSelector,
): string {
  const labels = shortened(
    Object.entries(selector.labels)
      .map(([key, value]) => `${key}=${value}`)
      .join(','),
  );
  return `${directive} · selector ${selectorIndex} · ${selector.namespace}${labels ? ` ${labels}` : ''}`;
}

/**
 * Most characters of a selector's labels in its job's name. The name is stored in the job and in
 * every event BullMQ streams about it, and the selector is in the job's data in full already: a
 * selector of many labels must not cost its size three times over, nor draw a dashboard line
 * nobody reads.
 */
const NAME_LABELS_MAX = 80;

function shortened(labels: string): string {
  return labels.length <= NAME_LABELS_MAX ? labels : `${labels.slice(0, NAME_LABELS_MAX - 1)}…`;
}

/**
 * What the dashboard shows of a selector job: its name, the generation and where the selector
 * stands (its step, pods bounced of those chosen, and the batch of deletions in flight), read from
 * the progress the worker persists in the job's data after every effect.
 */
export function selectorJobLabel(name: string, data: Partial<SelectorJobData> | undefined): string {
  const progress = data?.progress;
  if (progress === undefined) return name;
  const parts = [`generation ${data?.generation ?? '?'}`, progress.step];
  if (progress.chosen !== undefined) {
    parts.push(`${progress.bounced?.length ?? 0}/${progress.chosen.length} pods bounced`);
  }
  if (progress.inFlight?.length) parts.push(`batch of ${progress.inFlight.length} in flight`);
  return `${name} — ${parts.join(', ')}`;
}

/** Redis key that marks one run as accepted (kept for the retention period after it ends). */
export function acceptedKey(
  prefix: string,
  uid: string,
  generation: number,
  runKey: string,
): string {
  return `${prefix}:${QUEUE_NAME}:accepted:${uid}:${generation}:${runKey}`;
}

/**
 * Redis key naming the run that an event started whose `issuedAt` was ahead of the clock as sent
 * (`sentRunKey`): its value is that run's runKey (the moment it was received), so a repeat of the
 * event is answered as that run's duplicate, before or after the value it carries has come.
 */
export function sentKey(
  prefix: string,
  uid: string,
  generation: number,
  sentRunKey: string,
): string {
  return `${prefix}:${QUEUE_NAME}:sent:${uid}:${generation}:${sentRunKey}`;
}

/** A directive by name: what DESIGN calls a directive, whatever uid the cluster gives it now. */
export interface DirectiveName {
  namespace: string;
  name: string;
}

/**
 * Redis key of a directive's bounce lease: the jobs (of one run) that are choosing pods or sending
 * a batch for it (`workflow/bounce-lease.ts`). A hash, by namespace/name: a directive deleted and
 * re-created under the same name (a new uid) shares it with its predecessor's batch in flight.
 */
export function bounceLeaseKey(prefix: string, directive: DirectiveName): string {
  return `${prefix}:${QUEUE_NAME}:lease:${directive.namespace}/${directive.name}`;
}

/**
 * The field of a bounce lease naming the uid whose run took it last and that run's acceptance (ms):
 * `<uid> <acceptedAt>`. No job id starts with `~`.
 */
export const LEASE_OWNER_FIELD = '~owner';

/**
 * Redis key of the pods a directive's runs sent evictions or deletions to, recently: a hash of one
 * field per selector (`workflow/sent-pods.ts`).
 */
export function sentPodsKey(prefix: string, uid: string): string {
  return `${prefix}:${QUEUE_NAME}:sent-pods:${uid}`;
}

/**
 * Redis key of the pods of a namespace any directive's run sent a bounce to lately: a hash of one
 * field per pod uid, `<directive uid> <second sent>` (`workflow/pod-claims-script.ts`). Under the
 * prefix, so in the slot of every other key (its hash tag).
 */
export function podClaimsKey(prefix: string, namespace: string): string {
  return `${prefix}:${QUEUE_NAME}:pod-claims:${namespace}`;
}

/**
 * Redis key of the controller owners one run bounced a pod of, each with the second it first
 * did (`workflow/sent-pods.ts`): a pod of that owner created in or after it is the run's own
 * replacement.
 */
export function runOwnersKey(
  prefix: string,
  uid: string,
  generation: number,
  runKey: string,
): string {
  return `${prefix}:${QUEUE_NAME}:run-owners:${uid}:${generation}:${runKey}`;
}

/**
 * Redis key of the pods one run sent a bounce to, each with the selector that sent it
 * (`workflow/sent-pods.ts`): with several selectors at once, of two that chose the same pod only
 * the first sends.
 */
export function runSentPodsKey(
  prefix: string,
  uid: string,
  generation: number,
  runKey: string,
): string {
  return `${prefix}:${QUEUE_NAME}:run-sent:${uid}:${generation}:${runKey}`;
}

/**
 * Redis key of the turns a directive namespace's selector jobs took at the worker slots lately
 * (`namespace-turns.ts`): a hash of jobs queued per window of a few seconds, expiring soon after.
 */
export function turnsKey(prefix: string, namespace: string): string {
  return `${prefix}:${QUEUE_NAME}:turns:${namespace}`;
}

/** Redis key holding the latest run of a directive (JSON, see `runs.ts`). */
export function latestRunKey(prefix: string, uid: string): string {
  return `${prefix}:${QUEUE_NAME}:run:${uid}`;
}

/**
 * The runs of a directive accepted within RETENTION_DAYS, one member `generation:runKey:jobs:
 * sentRunKey` each (written when a run is confirmed): what is reclaimed when the directive is
 * deleted (`reclaim.ts`).
 */
export function runIndexKey(prefix: string, uid: string): string {
  return `${prefix}:${QUEUE_NAME}:runs-of:${uid}`;
}

/** At most one `TooManyRuns` Event a minute per directive: set when one is recorded. */
export function tooManyRunsEventKey(prefix: string, uid: string): string {
  return `${prefix}:${QUEUE_NAME}:too-many-runs-event:${uid}`;
}

/**
 * The runs a directive started in the past hour: a sorted set of `runBudgetMember`s by time. By
 * namespace/name, and never reclaimed (it expires within the hour): deleting and re-creating a
 * directive does not give it a fresh budget.
 */
export function runBudgetKey(prefix: string, directive: DirectiveName): string {
  return `${prefix}:${QUEUE_NAME}:runs-hour:${directive.namespace}/${directive.name}`;
}

/**
 * Redis key that asks the worker to end one run (uid, generation, runKey): set by the abort route,
 * or by a selector's terminal failure when several are in progress at once (a halt), deleted by
 * the retry route before it retries the failed jobs.
 */
/** How long an abort or a halt is kept: as long as the jobs it ends (the default retention). */
export const ABORT_TTL_SECONDS = 30 * 24 * 3600;

export function abortKey(prefix: string, uid: string, generation: number, runKey: string): string {
  return `${prefix}:${QUEUE_NAME}:abort:${runTag({ uid, generation, runKey })}`;
}

/**
 * Redis key of a run's selector bookkeeping under `maxConcurrentSelectors` > 1
 * (`workflow/selector-slots.ts`): `part` is `done`, `busy` (in progress) or a parked set.
 */
export function runSlotsKey(
  prefix: string,
  run: RunId,
  part: 'done' | 'busy' | 'after' | 'barrier' | 'slot' | 'starting',
): string {
  return `${prefix}:${QUEUE_NAME}:slots:${runTag(run)}:${part}`;
}

/**
 * Redis key of the inline applies of one directive still deciding their run (`inline-applies.ts`):
 * a sorted set of request tokens by the moment each stops counting. By name, not uid: an apply
 * that creates the directive knows no uid before it is answered.
 */
export function inlineAppliesKey(prefix: string, namespace: string, name: string): string {
  return `${prefix}:${QUEUE_NAME}:inline:${namespace}/${name}`;
}
