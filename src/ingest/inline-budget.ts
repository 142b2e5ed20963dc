import { NotFoundError } from '../errors.js';
import type { CertIssued } from '../events/cert-issued.js';
import { directiveKey, type Directive } from '../directive/types.js';
import { tooManyRunsEventKey } from '../queue/names.js';
import { runBudgetWait } from '../queue/run-claims.js';
import { inRedis } from '../queue/durable.js';
import type { IngestDeps } from './deps.js';
import { checkInlineApply } from './directive-source.js';
import { TooManyRunsError } from './errors.js';

type Inline = Extract<CertIssued, { kind: 'inline' }>;

/**
 * A directive past MAX_RUNS_PER_HOUR: a Warning Event `TooManyRuns` (at most one a minute per
 * directive, decided in Redis so that api replicas agree), then 429 with Retry-After. Nothing was
 * claimed or enqueued. A directive that does not exist (an inline one refused before its
 * creation) has nothing to record the Event on.
 */
export async function refuseTooManyRuns(
  deps: IngestDeps,
  directive: Directive,
  retryAfterMs: number,
  exists = true,
): Promise<never> {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const { uid } = directive.metadata;
  const key = tooManyRunsEventKey(deps.config.queuePrefix, uid);
  const first = exists ? await deps.redis.set(key, '1', 'EX', 60, 'NX').catch(() => null) : null;
  if (first === 'OK') {
    const message = `${deps.config.maxRunsPerHour} runs were started in the past hour (MAX_RUNS_PER_HOUR); the next is allowed in ${seconds} s.`;
    deps.kube
      .recordEvent(directive, { type: 'Warning', reason: 'TooManyRuns', message })
      .catch((error: unknown) => deps.log.warn({ err: error }, 'could not record TooManyRuns'));
  }
  throw new TooManyRunsError(
    `${directiveKey(directive.metadata)} already started ${deps.config.maxRunsPerHour} runs in the past hour (MAX_RUNS_PER_HOUR); send it again in ${seconds} s.`,
    seconds,
  );
}

async function current(deps: IngestDeps, event: Inline): Promise<Directive | undefined> {
  try {
    return await deps.kube.getDirective(event.manifest.metadata);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * An inline event whose run the budget would refuse is refused before its apply, so that a 429
 * writes nothing: an applied spec change would supersede the run in progress with a generation
 * that has no run. The budget is read first (one Redis call; nothing more while runs are left).
 * Only when it is spent does a dry run tell whether the apply would create the directive or
 * change its generation (a new run, refused here); one that changes no generation may repeat an
 * accepted run, a duplicate that the budget never refuses, so the claim decides it as before.
 *
 * The claim's own check stays the authority: requests for the same directive at the same moment
 * may spend the budget between this read and their claims, and one of them is then applied and
 * still answered 429. Requests for other directives spend other budgets.
 */
export async function refuseInlineOverBudget(
  deps: IngestDeps,
  event: CertIssued,
  sender: string,
): Promise<void> {
  if (event.kind !== 'inline') return;
  const { metadata } = event.manifest;
  const perHour = deps.config.maxRunsPerHour;
  const wait = await inRedis(() =>
    runBudgetWait(deps.redis, deps.config.queuePrefix, metadata, { perHour }),
  );
  if (wait === undefined) return;
  const before = await current(deps, event);
  const after = await checkInlineApply(deps, event.manifest, sender);
  const unchanged =
    before !== undefined &&
    before.metadata.uid === after.metadata.uid &&
    before.metadata.generation === after.metadata.generation;
  if (!unchanged) await refuseTooManyRuns(deps, before ?? after, wait, before !== undefined);
}
