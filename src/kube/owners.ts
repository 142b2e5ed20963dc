import {
  AppsV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import type { KubeVerb } from '../metrics/kube.js';
import { NotFoundError } from '../errors.js';
import { RESTARTED_AT } from './pods.js';
import { rolloutStatus, type RolloutKind, type RolloutState } from './rollout-status.js';

/** An owner `kubectl rollout restart` can restart. */
export interface RolloutOwner {
  kind: RolloutKind;
  name: string;
}

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** How owners' requests are sent: the gateway's limiter and error mapping (`KubeGateway.send`). */
export interface GroupRequests {
  send<T>(verb: KubeVerb, what: string, request: (config: KubeConfig) => Promise<T>): Promise<T>;
}

/**
 * The apps/v1 owners of pods, for `bounceMode: rollout`: who owns a pod, restarting an owner the
 * way `kubectl rollout restart` does, and whether its rollout is complete by kubectl's rules.
 * Needs get on replicasets, get and patch on deployments, statefulsets and daemonsets.
 */
export class OwnerGateway {
  private readonly apps = new WeakMap<KubeConfig, AppsV1Api>();

  constructor(private readonly kube: GroupRequests) {}

  private api(config: KubeConfig): AppsV1Api {
    let api = this.apps.get(config);
    if (api === undefined) {
      api = config.makeApiClient(AppsV1Api);
      this.apps.set(config, api);
    }
    return api;
  }

  /** The restartable owner of a pod's controller: a ReplicaSet's Deployment, a StatefulSet, a DaemonSet. */
  async ownerOf(
    namespace: string,
    controller: { kind: string; name: string },
  ): Promise<RolloutOwner | undefined> {
    if (controller.kind === 'StatefulSet' || controller.kind === 'DaemonSet') {
      return { kind: controller.kind, name: controller.name };
    }
    if (controller.kind !== 'ReplicaSet') return undefined;
    try {
      const set = await this.kube.send(
        'get',
        `read replicaset ${namespace}/${controller.name}`,
        (c) => this.api(c).readNamespacedReplicaSet({ namespace, name: controller.name }),
      );
      const owner = set.metadata?.ownerReferences?.find((reference) => reference.controller);
      return owner?.kind === 'Deployment' ? { kind: 'Deployment', name: owner.name } : undefined;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * How many pods a pod's controller wants now, as the disruption controller counts a
   * PodDisruptionBudget's expected pods: a ReplicaSet's or StatefulSet's `spec.replicas`, a
   * DaemonSet's `status.desiredNumberScheduled`. Undefined for another kind, or an owner gone.
   */
  async desiredPods(
    namespace: string,
    controller: { kind: string; name: string },
  ): Promise<number | undefined> {
    const { kind, name } = controller;
    if (kind !== 'ReplicaSet' && kind !== 'StatefulSet' && kind !== 'DaemonSet') return undefined;
    try {
      return await this.kube.send('get', `read ${kind} ${namespace}/${name}`, async (c) => {
        const api = this.api(c);
        const params = { namespace, name };
        if (kind === 'ReplicaSet')
          return (await api.readNamespacedReplicaSet(params)).spec?.replicas ?? 1;
        if (kind === 'StatefulSet') {
          return (await api.readNamespacedStatefulSet(params)).spec?.replicas ?? 1;
        }
        return (await api.readNamespacedDaemonSet(params)).status?.desiredNumberScheduled;
      });
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /** Sets the pod template's restartedAt annotation (a repeated value changes nothing). */
  async restart(namespace: string, owner: RolloutOwner, at: string): Promise<void> {
    const body = { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: at } } } } };
    const what = `restart ${owner.kind} ${namespace}/${owner.name}`;
    await this.kube.send('patch', what, async (c) => {
      const api = this.api(c);
      const params = { namespace, name: owner.name, body };
      if (owner.kind === 'Deployment') await api.patchNamespacedDeployment(params, MERGE);
      else if (owner.kind === 'StatefulSet') await api.patchNamespacedStatefulSet(params, MERGE);
      else await api.patchNamespacedDaemonSet(params, MERGE);
    });
  }

  /** The owner's object: its template annotation and its rollout state by kubectl's rules. */
  async rollout(
    namespace: string,
    owner: RolloutOwner,
  ): Promise<{ restartedAt: string | undefined; state: RolloutState }> {
    const what = `read ${owner.kind} ${namespace}/${owner.name}`;
    const object = await this.kube.send('get', what, async (c): Promise<object> => {
      const api = this.api(c);
      const params = { namespace, name: owner.name };
      if (owner.kind === 'Deployment') return api.readNamespacedDeployment(params);
      if (owner.kind === 'StatefulSet') return api.readNamespacedStatefulSet(params);
      return api.readNamespacedDaemonSet(params);
    });
    const template = (
      object as { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } }
    ).spec?.template?.metadata?.annotations;
    return { restartedAt: template?.[RESTARTED_AT], state: rolloutStatus(owner.kind, object) };
  }
}
