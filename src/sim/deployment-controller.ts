// The Deployment controller (pkg/controller/deployment): one ReplicaSet per pod template, named by
// the template's hash; a changed template gets a new ReplicaSet that replaces the old ones, either
// all at once (Recreate) or within maxSurge / maxUnavailable (RollingUpdate).
import { copyJson } from './copy.js';
import type { AppsContext } from './apps-context.js';
import type { WorkloadObject } from './apps-util.js';
import { ownerRefTo, replicasOf, scaledValue, statusNumber, templateHash } from './apps-util.js';
import { deploymentStatus } from './deployment-status.js';
import { controllerRef } from './objects.js';

export const TEMPLATE_HASH_LABEL = 'pod-template-hash';
const REVISION = 'deployment.kubernetes.io/revision';
const RS_KEY = 'replicasets';

interface Rollout {
  ctx: AppsContext;
  d: WorkloadObject;
  replicas: number;
  newRS: WorkloadObject | undefined;
  /** Older ReplicaSets, oldest first. */
  olds: WorkloadObject[];
}

export function reconcileDeployment(ctx: AppsContext, d: WorkloadObject): void {
  const hash = templateHash(d.spec.template);
  const owned = ownedReplicaSets(ctx, d);
  const rollout: Rollout = {
    ctx,
    d,
    replicas: replicasOf(d),
    newRS: owned.find((rs) => rs.metadata.labels?.[TEMPLATE_HASH_LABEL] === hash),
    olds: owned.filter((rs) => rs.metadata.labels?.[TEMPLATE_HASH_LABEL] !== hash).sort(byRevision),
  };
  if (!d.spec.paused) {
    if (d.spec.strategy?.type === 'Recreate') recreate(rollout, hash);
    else rollingUpdate(rollout, hash);
  }
  const after = ownedReplicaSets(ctx, d);
  const current = after.find((rs) => rs.metadata.labels?.[TEMPLATE_HASH_LABEL] === hash);
  ctx.writeStatus(d, deploymentStatus(d, after, current, fenceposts(d)[1]));
}

/** maxSurge rounded up, maxUnavailable rounded down; both 0 would stall, so unavailable is 1. */
export function fenceposts(d: WorkloadObject): [number, number] {
  const replicas = replicasOf(d);
  const rolling = d.spec.strategy?.rollingUpdate ?? {};
  const surge = scaledValue(rolling.maxSurge ?? '25%', replicas, true);
  const unavailable = scaledValue(rolling.maxUnavailable ?? '25%', replicas, false);
  return surge === 0 && unavailable === 0 ? [0, 1] : [surge, unavailable];
}

function recreate(r: Rollout, hash: string): void {
  const scaling = r.olds.filter((rs) => replicasOf(rs) > 0);
  for (const rs of scaling) r.ctx.scale(rs, 0);
  if (scaling.length > 0) return;
  if (r.olds.some((rs) => r.ctx.pods(rs).length > 0)) return;
  if (!r.newRS) createNewReplicaSet(r, hash, r.replicas);
  else r.ctx.scale(r.newRS, r.replicas);
}

function rollingUpdate(r: Rollout, hash: string): void {
  const [surge] = fenceposts(r.d);
  if (!r.newRS) {
    createNewReplicaSet(r, hash, newReplicaSetReplicas(r, surge, 0));
    return;
  }
  const current = replicasOf(r.newRS);
  if (current > r.replicas) {
    r.ctx.scale(r.newRS, r.replicas);
    return;
  }
  const next = newReplicaSetReplicas(r, surge, current);
  if (next !== current) {
    r.ctx.scale(r.newRS, next);
    return;
  }
  scaleDownOld(r, r.newRS);
}

/** NewRSNewReplicas: scale up as far as replicas + maxSurge allows. */
function newReplicaSetReplicas(r: Rollout, surge: number, current: number): number {
  const total = sumSpec(r.olds) + current;
  const maxTotal = r.replicas + surge;
  if (total >= maxTotal) return current;
  return current + Math.min(maxTotal - total, r.replicas - current);
}

/** reconcileOldReplicaSets: unhealthy old pods first, then old ones while enough stay available. */
function scaleDownOld(r: Rollout, newRS: WorkloadObject): void {
  if (sumSpec(r.olds) === 0) return;
  const minAvailable = r.replicas - fenceposts(r.d)[1];
  const newUnavailable = replicasOf(newRS) - statusNumber(newRS, 'availableReplicas');
  let budget = sumSpec(r.olds) + replicasOf(newRS) - minAvailable - newUnavailable;
  if (budget <= 0) return;
  const olds = r.olds.map((rs) => {
    const unhealthy = replicasOf(rs) - statusNumber(rs, 'availableReplicas');
    const cut = Math.min(budget, Math.max(0, unhealthy));
    if (cut === 0) return rs;
    budget -= cut;
    return r.ctx.scale(rs, replicasOf(rs) - cut);
  });
  const available = [...olds, newRS].reduce(
    (n, rs) => n + statusNumber(rs, 'availableReplicas'),
    0,
  );
  let excess = available - minAvailable;
  for (const rs of olds) {
    if (excess <= 0) break;
    const cut = Math.min(replicasOf(rs), excess);
    if (cut === 0) continue;
    r.ctx.scale(rs, replicasOf(rs) - cut);
    excess -= cut;
  }
}

function createNewReplicaSet(r: Rollout, hash: string, replicas: number): void {
  const { d } = r;
  const revision = Math.max(0, ...r.olds.map(revisionOf)) + 1;
  const labels = { ...d.spec.template.metadata?.labels, [TEMPLATE_HASH_LABEL]: hash };
  const template = copyJson(d.spec.template);
  template.metadata = { ...template.metadata, labels };
  r.ctx.create('ReplicaSet', {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: d.metadata.namespace,
      labels,
      annotations: {
        [REVISION]: String(revision),
        'deployment.kubernetes.io/desired-replicas': String(r.replicas),
        'deployment.kubernetes.io/max-replicas': String(r.replicas + fenceposts(d)[0]),
      },
      ownerReferences: [ownerRefTo(d)],
    },
    spec: {
      replicas,
      selector: { matchLabels: { ...d.spec.selector?.matchLabels, [TEMPLATE_HASH_LABEL]: hash } },
      template,
    },
  });
}

function ownedReplicaSets(ctx: AppsContext, d: WorkloadObject): WorkloadObject[] {
  return ctx.store.list(
    RS_KEY,
    d.metadata.namespace,
    (rs) => controllerRef(rs)?.uid === d.metadata.uid,
  ) as WorkloadObject[];
}

function sumSpec(sets: WorkloadObject[]): number {
  return sets.reduce((n, rs) => n + replicasOf(rs), 0);
}

function revisionOf(rs: WorkloadObject): number {
  return Number(rs.metadata.annotations?.[REVISION] ?? 0) || 0;
}

function byRevision(a: WorkloadObject, b: WorkloadObject): number {
  return revisionOf(a) - revisionOf(b);
}
