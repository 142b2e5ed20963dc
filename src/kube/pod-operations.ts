import type { KubeConfig } from '@kubernetes/client-node';
import { labelSelector } from '../directive/syntax.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { unlessNotFound } from './not-found.js';
import { toPodInfo, type PodInfo, type PodJson } from './pods.js';
import { namespacedPath, sendRaw } from './raw-request.js';
import { NO_RETRY, type KubeRequests, type PodIdentity } from './requests.js';

export type DeleteOutcome = 'deleted' | 'gone';
export type EvictOutcome = 'evicted' | 'gone' | 'blocked';

/** A pod with its labels, for a reader that selects among a namespace's pods itself. */
export interface LabelledPod {
  pod: PodInfo;
  labels: Record<string, string>;
}

/** What the workflow does to pods: find them, look at one, and take one down at most once. */
export interface PodOperations {
  listPods(namespace: string, labels: Record<string, string>): Promise<PodInfo[]>;
  getPod(namespace: string, name: string): Promise<PodInfo | undefined>;
  deletePod(namespace: string, name: string, uid: string): Promise<DeleteOutcome>;
  evictPod(namespace: string, name: string, uid: string): Promise<EvictOutcome>;
}

/**
 * Pods through the gateway's request machinery; see `KubeGateway` for the guarantees. Every call
 * is a bounce's hot path, so each goes out as plain JSON (`raw-request.ts`), and only the fields
 * `PodInfo` keeps are read from the answers.
 */
export class PodClient implements PodOperations {
  private readonly lookup = (namespace: string, name: string): Promise<PodInfo | undefined> =>
    this.getPod(namespace, name);

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly requests: KubeRequests,
  ) {}

  async listPods(namespace: string, labels: Record<string, string>): Promise<PodInfo[]> {
    return (await this.list(namespace, labelSelector(labels))).map(toPodInfo);
  }

  /** Every pod of a namespace with its labels: one LIST for any number of selectors there. */
  async listNamespacePods(namespace: string): Promise<LabelledPod[]> {
    const items = await this.list(namespace, '');
    return items.map((item) => ({ pod: toPodInfo(item), labels: item.metadata?.labels ?? {} }));
  }

  private list(namespace: string, selector: string): Promise<PodJson[]> {
    const what = `list pods in ${namespace} matching "${selector}"`;
    const path = `${namespacedPath(namespace, 'pods')}?labelSelector=${encodeURIComponent(selector)}`;
    return this.requests.call({ verb: 'list', what }, async () => {
      const list = JSON.parse(await sendRaw(this.kubeConfig, { method: 'GET', path })) as {
        items?: PodJson[];
      };
      return list.items ?? [];
    });
  }

  async getPod(namespace: string, name: string): Promise<PodInfo | undefined> {
    const path = namespacedPath(namespace, 'pods', name);
    return unlessNotFound(
      this.requests.call({ verb: 'get', what: `read pod ${namespace}/${name}` }, async () =>
        toPodInfo(JSON.parse(await sendRaw(this.kubeConfig, { method: 'GET', path })) as PodJson),
      ),
    );
  }

  /**
   * Deletes a pod only if it still has this uid: a StatefulSet replacement reuses the name and
   * must never be deleted. Already gone (404) or replaced (uid conflict) both mean "done".
   */
  async deletePod(namespace: string, name: string, uid: string): Promise<DeleteOutcome> {
    const pod = { namespace, name, uid };
    const call = {
      method: 'DELETE' as const,
      path: namespacedPath(namespace, 'pods', name),
      body: JSON.stringify({ preconditions: { uid } }),
    };
    const send = async (): Promise<DeleteOutcome> => {
      await this.requests.call(
        { verb: 'delete', what: `delete pod ${namespace}/${name}` },
        () => sendRaw(this.kubeConfig, call),
        NO_RETRY,
      );
      return 'deleted';
    };
    return goneWhenAbsent(this.requests.sendOnce(pod, send, 'deleted', this.lookup));
  }

  /** Evicts through the Eviction API, which honours PodDisruptionBudgets (429 → blocked). */
  async evictPod(namespace: string, name: string, uid: string): Promise<EvictOutcome> {
    const pod = { namespace, name, uid };
    const call = {
      method: 'POST' as const,
      path: namespacedPath(namespace, 'pods', name, 'eviction'),
      body: JSON.stringify(evictionOf(pod)),
    };
    const send = async (): Promise<EvictOutcome> => {
      try {
        await this.requests.call(
          { verb: 'create', what: `evict pod ${namespace}/${name}` },
          () => sendRaw(this.kubeConfig, call),
          NO_RETRY,
        );
        return 'evicted';
      } catch (error) {
        // A 429 is normally a PodDisruptionBudget saying "not now" (the step waits and tries
        // later); but the answer may stand for an eviction that landed, so look first.
        if (!isTooManyRequests(error)) throw error;
        const live = await this.getPod(namespace, name);
        return live === undefined || live.uid !== uid || live.terminating ? 'evicted' : 'blocked';
      }
    };
    return goneWhenAbsent(this.requests.sendOnce(pod, send, 'evicted', this.lookup));
  }
}

/** The policy/v1 Eviction of a pod, guarded by its uid. */
function evictionOf(pod: PodIdentity): object {
  const { namespace, name, uid } = pod;
  return {
    apiVersion: 'policy/v1',
    kind: 'Eviction',
    metadata: { name, namespace },
    deleteOptions: { preconditions: { uid } },
  };
}

/** Already gone (404) or replaced (uid precondition, 409): the pod this call aimed at is done. */
async function goneWhenAbsent<T>(outcome: Promise<T>): Promise<T | 'gone'> {
  try {
    return await outcome;
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof ConflictError) return 'gone';
    throw error;
  }
}

function isTooManyRequests(error: unknown): boolean {
  const cause = (error as { cause?: { code?: number } } | undefined)?.cause;
  return cause?.code === 429;
}
