import { annotatedIssuance, describedByStatus } from '../events/issued-at.js';
import { directiveKey, type Directive } from '../directive/types.js';
import { normalizeBody } from '../events/normalize.js';
import type { IngestDeps } from '../ingest/deps.js';
import { ingest } from '../ingest/ingest.js';
import { warnInvalidIssuedAt } from '../events/issuance.js';
import type { WatchedCollection } from '../kube/namespace-slices.js';
import { EVERY_NAMESPACE, type KubeWatches } from '../kube/watches.js';
import { TooManyRunsError } from '../ingest/errors.js';
import { InlineApplies } from '../queue/inline-applies.js';
import { refused, verdictOf } from './refusal.js';

/**
 * The name controller mode goes by where a credential's would be. No credential can bear it (names
 * are DNS labels or `ns:name`), so no CREDENTIAL_NAMESPACES entry narrows it: ALLOWED_NAMESPACES
 * bounds it, as DESIGN §4 says.
 */
export const CONTROLLER_SENDER = '(controller)';

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
/** How often a directive held off by an inline apply is looked at again (its PENDING may not come). */
const HELD_RECHECK_MS = 1000;

/**
 * Controller mode (DESIGN §4): every directive this worker's watches see, at start-up and on every
 * change, is ingested as the Kubernetes watch event a router would post (`ingest`, the very path
 * of `POST /v1/events`: the same validation, bounds, run claim, duplicates, run budget and gates).
 * What a sender would be answered decides the rest: a directive that cannot run is refused in its
 * status; a run budget spent or an outage is tried again later.
 *
 * Any number of replicas may run one: the run claim in Redis starts each issuance once, and the
 * status writer's resourceVersion guard writes a refusal once. A directive an inline event is
 * being applied to waits for that event's run (`InlineApplies`): the object alone names no
 * issuance, and would otherwise start a run that the event's supersedes at once.
 */
export class DirectiveController {
  private readonly informers: WatchedCollection<Directive>[] = [];
  private readonly stops: (() => void)[] = [];
  private readonly retries = new Map<string, { timer: NodeJS.Timeout; delayMs: number }>();
  /** Directives being reconciled, and those that changed meanwhile (reconciled once more after). */
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private closed = false;
  private readonly inlineApplies: InlineApplies;

  constructor(
    private readonly deps: IngestDeps,
    private readonly watches: KubeWatches,
    /** Told of each directive the watches see deleted (its Redis keys are reclaimed). */
    private readonly deleted?: (directive: Directive) => void,
  ) {
    this.inlineApplies = new InlineApplies(deps.redis, deps.config.queuePrefix);
  }

  /** Watches ALLOWED_NAMESPACES one by one, or every namespace with one watch when it is unset. */
  start(): void {
    const namespaces = this.deps.config.allowedNamespaces ?? [EVERY_NAMESPACE];
    for (const namespace of namespaces) {
      const informer = this.watches.informer('directives', namespace);
      this.informers.push(informer);
      this.stops.push(
        informer.subscribe((kind, directive) => {
          if (kind === 'delete') this.deleted?.(directive);
          else this.changed(directive);
        }),
      );
      // Objects listed before the subscription are seen too (a start-up, a late subscriber).
      for (const directive of informer.list(namespace)) this.changed(directive);
    }
  }

  close(): void {
    this.closed = true;
    for (const stop of this.stops) stop();
    for (const { timer } of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }

  private changed(directive: Directive): void {
    const key = directiveKey(directive.metadata);
    const retry = this.retries.get(key);
    if (retry !== undefined) clearTimeout(retry.timer);
    this.retries.delete(key);
    void this.reconcile(key);
  }

  /** The directive as the watch holds it now (a retry acts on the latest copy, never an old one). */
  private current(key: string): Directive | undefined {
    const [namespace = '', name = ''] = key.split('/');
    for (const informer of this.informers) {
      const found = informer.get(namespace, name);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  private async reconcile(key: string): Promise<void> {
    if (this.closed) return;
    if (this.running.has(key)) {
      this.again.add(key);
      return;
    }
    this.running.add(key);
    try {
      const directive = this.current(key);
      if (directive !== undefined) await this.reconcileOne(key, directive);
    } finally {
      this.running.delete(key);
      if (this.again.delete(key)) void this.reconcile(key);
    }
  }

  private async reconcileOne(key: string, directive: Directive): Promise<void> {
    if (describedByStatus(directive)) {
      // Nothing to start; an annotation that cannot name an issuance is still worth a Warning.
      const annotated = annotatedIssuance(directive);
      if (annotated.kind === 'invalid') {
        await warnInvalidIssuedAt(this.deps, directive, annotated.value, annotated.why);
      }
      return;
    }
    try {
      // An inline event applied this object and is deciding its run: that run is the one to start
      // (read after the object, so an apply that wrote it is seen here until its run is decided).
      const heldMs = await this.inlineApplies.heldFor(directive.metadata);
      if (heldMs > 0) {
        this.later(key, Math.min(heldMs, HELD_RECHECK_MS));
        return;
      }
      await ingest(
        this.deps,
        normalizeBody({ type: 'MODIFIED', object: directive }),
        CONTROLLER_SENDER,
      );
      this.retries.delete(key);
    } catch (error) {
      await this.failed(key, directive, error);
    }
  }

  private async failed(key: string, directive: Directive, error: unknown): Promise<void> {
    const verdict = verdictOf(error);
    if (verdict.kind === 'gone') return;
    if (verdict.kind === 'refused') {
      const { namespace, name, uid, generation } = directive.metadata;
      this.deps.log.warn({ directive: key, reason: verdict.message }, 'directive refused');
      await this.deps.status
        .apply(
          { namespace, name, uid, generation },
          refused(generation, verdict.message),
          directive,
        )
        .catch((writeError: unknown) => {
          this.deps.log.warn({ err: writeError, directive: key }, 'could not write the refusal');
          this.later(key, undefined);
        });
      return;
    }
    if (error instanceof TooManyRunsError) {
      // Routine, and told in a TooManyRuns Event: one line, no stack.
      const { generation } = directive.metadata;
      const retryAfterSeconds = error.retryAfterSeconds;
      this.deps.log.info(
        { directive: key, generation, retryAfterSeconds },
        'run not started: MAX_RUNS_PER_HOUR reached; trying again after retryAfterSeconds',
      );
    } else {
      this.deps.log.info({ err: error, directive: key }, 'directive not started yet; trying again');
    }
    this.later(key, verdict.afterMs);
  }

  /** Tries again after `afterMs`, or after a backoff that doubles from 1 s to 30 s. */
  private later(key: string, afterMs: number | undefined): void {
    if (this.closed) return;
    const previous = this.retries.get(key)?.delayMs;
    const delayMs =
      afterMs ?? Math.min(MAX_RETRY_MS, previous === undefined ? FIRST_RETRY_MS : previous * 2);
    const timer = setTimeout(() => {
      void this.reconcile(key);
    }, delayMs);
    timer.unref();
    this.retries.set(key, { timer, delayMs });
  }
}
