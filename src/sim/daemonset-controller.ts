// The DaemonSet controller (pkg/controller/daemon): one pod on every simulated node, a new one as
// soon as a node's pod starts terminating; RollingUpdate (maxSurge 0) deletes old pods while no
// more than maxUnavailable nodes lack an available pod; OnDelete replaces none.
import type { AppsContext } from './apps-context.js';
import type { WorkloadObject } from './apps-util.js';
import { isAvailable, scaledValue, templateHash } from './apps-util.js';
import type { PodObject } from './objects.js';
import { isTerminating } from './pod-factory.js';

const REVISION_LABEL = 'controller-revision-hash';

export function reconcileDaemonSet(ctx: AppsContext, ds: WorkloadObject): void {
  const hash = templateHash(ds.spec.template);
  const byNode = liveByNode(ctx.pods(ds));
  for (const node of ctx.nodes) {
    const [keep, ...extra] = byNode.get(node) ?? [];
    for (const pod of extra) ctx.deletePod(pod);
    if (!keep) createPod(ctx, ds, hash, node);
  }
  const strategy = ds.spec.updateStrategy;
  if (strategy?.type !== 'OnDelete') {
    const maxUnavailable = scaledValue(
      strategy?.rollingUpdate?.maxUnavailable ?? 1,
      ctx.nodes.length,
      true,
    );
    rollingUpdate(ctx, ds, hash, Math.max(1, maxUnavailable));
  }
  ctx.writeStatus(ds, daemonSetStatus(ctx, ds, hash));
}

function rollingUpdate(
  ctx: AppsContext,
  ds: WorkloadObject,
  hash: string,
  maxUnavailable: number,
): void {
  const byNode = liveByNode(ctx.pods(ds));
  let unavailable = ctx.nodes.filter((node) => !byNode.get(node)?.some(isAvailable)).length;
  for (const node of ctx.nodes) {
    const pod = byNode.get(node)?.[0];
    if (!pod || pod.metadata.labels[REVISION_LABEL] === hash) continue;
    if (!isAvailable(pod)) ctx.deletePod(pod);
    else if (unavailable < maxUnavailable) {
      ctx.deletePod(pod);
      unavailable += 1;
    }
  }
}

function createPod(ctx: AppsContext, ds: WorkloadObject, hash: string, node: string): void {
  ctx.createPod(ds, ds.spec.template, {
    name: ctx.freshName(ds),
    nodeName: node,
    labels: {
      [REVISION_LABEL]: hash,
      'pod-template-generation': String(ds.metadata.generation ?? 1),
    },
  });
}

function daemonSetStatus(
  ctx: AppsContext,
  ds: WorkloadObject,
  hash: string,
): Record<string, unknown> {
  const byNode = liveByNode(ctx.pods(ds));
  const nodes = ctx.nodes.filter((node) => byNode.has(node));
  const pods = nodes.map((node) => byNode.get(node)![0]!);
  const available = pods.filter(isAvailable).length;
  return {
    observedGeneration: ds.metadata.generation ?? 1,
    desiredNumberScheduled: ctx.nodes.length,
    currentNumberScheduled: nodes.length,
    numberMisscheduled: 0,
    numberReady: available,
    numberAvailable: available,
    numberUnavailable: ctx.nodes.length - available,
    updatedNumberScheduled: pods.filter((pod) => pod.metadata.labels[REVISION_LABEL] === hash)
      .length,
  };
}

/** Live (not terminating) pods per node. */
function liveByNode(pods: PodObject[]): Map<string, PodObject[]> {
  const map = new Map<string, PodObject[]>();
  for (const pod of pods) {
    if (isTerminating(pod)) continue;
    const list = map.get(pod.spec.nodeName) ?? [];
    list.push(pod);
    map.set(pod.spec.nodeName, list);
  }
  return map;
}
