import { AbortedError, PermanentError } from '../../errors.js';
import type { OwnerGateway, RolloutOwner } from '../../kube/owners.js';
import type { RolloutState } from '../../kube/rollout-status.js';
import { runMoment } from '../../queue/run-identity.js';
import type { StepContext } from '../context.js';
import type { BouncePlan } from '../plan.js';
import { pausedNow } from '../context.js';
import { gateWait, soakWait } from '../steps/gates.js';
import { underLease, type LeaseRefusal } from '../steps/under-lease.js';
import { countsOf, pausedWait } from '../steps/waits.js';

function ownersOf(context: StepContext): OwnerGateway {
  return context.deps.kube.owners;
}

function parseKey(key: string): RolloutOwner {
  const [kind, name] = key.split('/') as [RolloutOwner['kind'], string];
  return { kind, name };
}

/** The run's restartedAt: the moment it stands for (`runMoment`), the same on every re-run. */
function restartedAt(context: StepContext): string {
  return runMoment(context.data);
}

/**
 * The uids of the chosen pods still in the API, terminating or not. kubectl's rules call a
 * Deployment rolled out while its old ReplicaSet's last pods are still terminating (a ReplicaSet's
 * status.replicas leaves them out), and such a pod still holds the old certificate; a DaemonSet
 * with maxSurge does the same. So an owner is done only once its chosen pods are gone too.
 */
async function chosenStillThere(context: StepContext): Promise<Set<string>> {
  const chosen = new Set((context.progress.chosen ?? []).map((pod) => pod.uid));
  const { namespace, labels } = context.data.selector;
  const pods =
    context.deps.view?.pods(namespace, labels) ??
    (await context.deps.kube.listPods(namespace, labels));
  return new Set(pods.filter((pod) => chosen.has(pod.uid)).map((pod) => pod.uid));
}

/**
 * The rollout state of an owner restarted, or in flight (then landed if its template carries this
 * run's restartedAt: it joins `restarted`); undefined for a restart that never landed.
 */
async function landedRollout(
  context: StepContext,
  key: string,
  restarted: Set<string>,
): Promise<RolloutState | undefined> {
  const namespace = context.data.selector.namespace;
  const { restartedAt: value, state } = await ownersOf(context).rollout(namespace, parseKey(key));
  if (!restarted.has(key) && value !== restartedAt(context)) return undefined;
  restarted.add(key);
  if (state.error !== undefined) throw new PermanentError(`${key}: ${state.error}`);
  return state;
}

/**
 * Reads the owners restarted so far (and one whose restart was in flight) and records which are
 * done: the rollout complete by kubectl's rules and every chosen pod of the owner gone.
 */
async function checkRolling(
  context: StepContext,
  restarted: Set<string>,
  done: Set<string>,
): Promise<string | undefined> {
  const owners = context.progress.podOwners ?? {};
  const inFlight = (context.progress.ownersRestarting ?? []).filter((key) => !restarted.has(key));
  let message: string | undefined;
  let present: Set<string> | undefined;
  for (const key of [...inFlight, ...restarted]) {
    if (done.has(key)) continue;
    const state = await landedRollout(context, key, restarted);
    if (state === undefined) continue;
    if (!state.done) {
      message ??= `${key}: ${state.message}`;
      continue;
    }
    present ??= await chosenStillThere(context);
    const left = [...present].filter((uid) => owners[uid] === key).length;
    if (left === 0) done.add(key);
    else message ??= `${key}: rolled out, ${left} chosen pod(s) not gone yet`;
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
 * under the directive's bounce lease, so a superseded run restarts nothing more; each only once
 * the soak after the owners done so far is over and every gate is open.
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
    // As before a batch (DESIGN §4 Soak, Gates): the soak after the owners complete so far, and
    // every gate, before another owner rolls.
    const bounced = bouncedBy(context, done);
    const held = (await soakWait(context, bounced)) ?? (await gateWait(context, bounced));
    if (held !== undefined) return { wait: held };
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
