import { AbortedError, PermanentError } from '../../errors.js';
import type { OwnerGateway, RolloutOwner } from '../../kube/owners.js';
import type { StepContext } from '../context.js';
import { resolvePodOwners, type BouncePlan, type PodOwners } from '../plan.js';
import { pausedNow } from '../run-control.js';
import { underLease, type LeaseRefusal } from '../steps/under-lease.js';
import { countsOf, pausedWait } from '../steps/waits.js';

function ownersOf(context: StepContext): OwnerGateway {
  return context.deps.kube.owners;
}

function parseKey(key: string): RolloutOwner {
  const [kind, name] = key.split('/') as [RolloutOwner['kind'], string];
  return { kind, name };
}

/**
 * Each chosen pod's restartable owner (`resolvePodOwners`: a ReplicaSet read per set), resolved
 * once and persisted, so that a re-run plans from the same answer.
 */
export async function podOwners(context: StepContext): Promise<PodOwners> {
  if (context.progress.podOwners !== undefined) return context.progress.podOwners;
  const result = await resolvePodOwners(
    (namespace, controller) => context.deps.kube.rolloutOwnerOf(namespace, controller),
    context.data.selector.namespace,
    context.progress.chosen ?? [],
  );
  await context.save({ podOwners: result });
  return result;
}

/** The run's restartedAt: its issuedAt, or when it was accepted. The same value on every re-run. */
function restartedAt(context: StepContext): string {
  return context.data.issuedAt ?? context.acceptedAt;
}

/**
 * Reads the owners restarted so far (and one whose restart was in flight: landed if its template
 * carries this run's restartedAt) and records which rollouts are complete.
 */
async function checkRolling(
  context: StepContext,
  restarted: Set<string>,
  done: Set<string>,
): Promise<string | undefined> {
  const namespace = context.data.selector.namespace;
  const inFlight = (context.progress.ownersRestarting ?? []).filter((key) => !restarted.has(key));
  let message: string | undefined;
  for (const key of [...inFlight, ...restarted]) {
    if (done.has(key)) continue;
    const { restartedAt: value, state } = await ownersOf(context).rollout(namespace, parseKey(key));
    if (!restarted.has(key) && value !== restartedAt(context)) continue; // never landed
    restarted.add(key);
    if (state.error !== undefined) throw new PermanentError(`${key}: ${state.error}`);
    if (state.done) done.add(key);
    else message ??= `${key}: ${state.message}`;
  }
  await context.save({
    ownersRestarted: [...restarted],
    ownersDone: [...done],
    ownersRestarting: [],
  });
  return message;
}

/**
 * Restarts owners while fewer than `limit` roll, each once per run: recorded before its patch
 * (in flight) and after it (restarted), so a crash never restarts an owner twice in a run; each
 * under the directive's bounce lease, so a superseded run restarts nothing more.
 */
async function advance(
  context: StepContext,
  keys: string[],
  limit: number,
): Promise<{ rolling: string[]; message?: string } | LeaseRefusal> {
  const restarted = new Set(context.progress.ownersRestarted ?? []);
  const done = new Set(context.progress.ownersDone ?? []);
  const message = await checkRolling(context, restarted, done);
  const rolling = [...restarted].filter((key) => !done.has(key));
  for (const key of keys.filter((candidate) => !restarted.has(candidate))) {
    if (rolling.length >= limit) break;
    if (await context.isAborted()) throw new AbortedError();
    if (pausedNow(context)) return { wait: pausedWait(context, bouncedBy(context, done)) };
    const sent = await underLease(context, async () => {
      await context.save({ ownersRestarting: [key] });
      await ownersOf(context).restart(
        context.data.selector.namespace,
        parseKey(key),
        restartedAt(context),
      );
    });
    if (!('value' in sent)) return sent;
    context.effectSent();
    restarted.add(key);
    await context.save({ ownersRestarted: [...restarted], ownersRestarting: [] });
    context.note(`rollout restart of ${key} (restartedAt ${restartedAt(context)})`);
    rolling.push(key);
  }
  return message === undefined ? { rolling } : { rolling, message };
}

/** Chosen pods whose owner's rollout is complete count as bounced. */
function bouncedBy(context: StepContext, done: Set<string>): Set<string> {
  const owners = context.progress.podOwners ?? {};
  const bounced = new Set(context.progress.bounced ?? []);
  for (const [uid, key] of Object.entries(owners))
    if (key !== null && done.has(key)) bounced.add(uid);
  return bounced;
}

/**
 * `bounceMode: rollout` (DESIGN §4 step 3): the plan's owners are restarted as
 * `kubectl rollout restart` does, in the plan's order, at most `maxUnavailable` rolling at once;
 * the owners' own strategies replace the pods. Resolves with `done` once every owner's rollout is
 * complete (the plan's pods without an owner are then evicted by the bounce step), or with a wait
 * woken by the namespace's pod changes.
 */
export async function rollOwners(
  context: StepContext,
  plan: BouncePlan,
): Promise<LeaseRefusal | 'done'> {
  const keys = plan.owners.map((owner) => owner.key);
  const step = await advance(context, keys, plan.maxUnavailable);
  if (!('rolling' in step)) return step;
  const done = new Set(context.progress.ownersDone ?? []);
  const bounced = bouncedBy(context, done);
  await context.save({ bounced: [...bounced] });
  if (keys.every((key) => done.has(key))) return 'done';
  const namespace = context.data.selector.namespace;
  return {
    wait: {
      what: `rollout of ${step.rolling.join(', ')} to complete${step.message === undefined ? '' : ` (${step.message})`}`,
      status: `rollout of ${step.rolling.join(', ')}`,
      counts: countsOf(context, bounced),
      timeoutSeconds: context.deps.settings.readinessTimeoutSeconds,
      wake: { kind: 'podReady', namespace },
    },
  };
}
