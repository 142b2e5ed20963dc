import {
  AuthenticationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  VersionApi,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { ConflictError, NotFoundError } from '../errors.js';
import {
  DIRECTIVE_GROUP,
  DIRECTIVE_PLURAL,
  DIRECTIVE_VERSION,
  type Directive,
  type DirectiveManifest,
  type DirectiveStatus,
  type ObjectRef,
} from '../directive/types.js';
import { labelSelector } from '../directive/syntax.js';
import { observeKubeRequest } from '../metrics/kube.js';
import { mapApiError } from './api-errors.js';
import { sendPodDelete } from './pod-delete-request.js';
import { toPodInfo, type PodInfo } from './pods.js';
import { RateLimiter } from './rate-limiter.js';
import {
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  shouldRetry,
  sleep,
  type RetryPolicy,
} from './retry.js';

export type DeleteOutcome = 'deleted' | 'gone';
export type EvictOutcome = 'evicted' | 'gone' | 'blocked';

export interface DirectiveEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface ReviewedToken {
  authenticated: boolean;
  username?: string;
}

const FIELD_MANAGER = 'pod-bouncer';
const NO_RETRY: RetryPolicy = { ...DEFAULT_RETRY_POLICY, attempts: 1 };
const directiveApi = {
  group: DIRECTIVE_GROUP,
  version: DIRECTIVE_VERSION,
  plural: DIRECTIVE_PLURAL,
};

/**
 * The only door to the Kubernetes API. Every call is rate limited and its failures are mapped to
 * the project's errors (404 → NotFoundError, 409 → ConflictError, 429/5xx/network → TransientError,
 * anything else → PermanentError). Transient failures are retried a few times inside the call
 * (short jittered backoff, Retry-After honoured up to a cap) before the caller sees them.
 */
export class KubeGateway {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly version: VersionApi;
  private readonly authn: AuthenticationV1Api;
  private readonly limiter: RateLimiter;
  private readonly retry: RetryPolicy;
  private readonly directiveWrites = new Set<(directive: Directive) => void>();

  constructor(
    private readonly kubeConfig: KubeConfig,
    limits: { qps: number; burst: number },
    retry: Partial<RetryPolicy> = {},
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.version = kubeConfig.makeApiClient(VersionApi);
    this.authn = kubeConfig.makeApiClient(AuthenticationV1Api);
    this.limiter = new RateLimiter(limits.qps, limits.burst);
    this.retry = { ...DEFAULT_RETRY_POLICY, ...retry };
  }

  /**
   * Sends one request through the rate limiter (every try takes a token) and maps its failure.
   * Only for requests that are safe to repeat blindly: reads, applies, resourceVersion-guarded
   * patches, reviews. Deletions use `sendOnce` and look before they repeat.
   */
  private async call<T>(
    what: string,
    request: () => Promise<T>,
    policy: RetryPolicy = this.retry,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      await this.limiter.take();
      try {
        return await observeKubeRequest(what, request);
      } catch (error) {
        const mapped = mapApiError(error, what);
        if (!shouldRetry(mapped, attempt, policy)) throw mapped;
        await sleep(retryDelayMs(mapped, attempt, policy));
      }
    }
  }

  /**
   * A deletion (or eviction) whose answer was lost may have landed: before sending it again, read
   * the pod; gone, replaced (another uid) or terminating means it landed, and nothing is re-sent.
   * So a transient failure never turns into a second DELETE of a pod that is already going.
   */
  private async sendOnce<T>(
    pod: { namespace: string; name: string; uid: string },
    send: () => Promise<T>,
    landed: T,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await send();
      } catch (error) {
        if (!shouldRetry(error, attempt, this.retry)) throw error;
        await sleep(retryDelayMs(error, attempt, this.retry));
        const live = await this.getPod(pod.namespace, pod.name);
        if (live === undefined || live.uid !== pod.uid || live.terminating) return landed;
      }
    }
  }

  /** A request of another API group (src/kube/owners.ts), through this limiter and error mapping. */
  send<T>(what: string, request: (config: KubeConfig) => Promise<T>): Promise<T> {
    return this.call(what, () => request(this.kubeConfig));
  }

  /** Cheap reachability probe for /readyz: one try, so that readiness answers quickly. */
  async ping(): Promise<void> {
    await this.call('read API server version', () => this.version.getCode(), NO_RETRY);
  }

  async getDirective(ref: ObjectRef): Promise<Directive> {
    return this.call(`read directive ${ref.namespace}/${ref.name}`, async () => {
      const object: unknown = await this.custom.getNamespacedCustomObject({
        ...directiveApi,
        ...ref,
      });
      return object as Directive;
    });
  }

  /** Creates or updates a directive by server-side apply; the server bumps generation on spec change. */
  async applyDirective(manifest: DirectiveManifest): Promise<Directive> {
    const { name, namespace } = manifest.metadata;
    return this.call(`apply directive ${namespace}/${name}`, async () => {
      const object: unknown = await this.custom.patchNamespacedCustomObject(
        {
          ...directiveApi,
          namespace,
          name,
          body: manifest,
          fieldManager: FIELD_MANAGER,
          force: true,
        },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      );
      return object as Directive;
    });
  }

  /**
   * Merge-patches the status subresource. The patch carries `resourceVersion`, so a concurrent
   * writer makes this fail with ConflictError instead of being silently overwritten.
   */
  async patchDirectiveStatus(directive: Directive, status: DirectiveStatus): Promise<Directive> {
    const { name, namespace, resourceVersion } = directive.metadata;
    return this.call(`write status of directive ${namespace}/${name}`, async () => {
      const object: unknown = await this.custom.patchNamespacedCustomObjectStatus(
        { ...directiveApi, namespace, name, body: { metadata: { resourceVersion }, status } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      const written = object as Directive;
      for (const observer of this.directiveWrites) observer(written);
      return written;
    });
  }

  /**
   * Tells `observer` of every directive status this gateway writes, so a watch cache can use the
   * new resourceVersion at once instead of a moment later when its watch reports the write.
   */
  observeDirectiveWrites(observer: (directive: Directive) => void): () => void {
    this.directiveWrites.add(observer);
    return () => this.directiveWrites.delete(observer);
  }

  async listPods(namespace: string, labels: Record<string, string>): Promise<PodInfo[]> {
    const selector = labelSelector(labels);
    return this.call(`list pods in ${namespace} matching "${selector}"`, async () => {
      const list = await this.core.listNamespacedPod({ namespace, labelSelector: selector });
      return list.items.map(toPodInfo);
    });
  }

  async getPod(namespace: string, name: string): Promise<PodInfo | undefined> {
    try {
      return await this.call(`read pod ${namespace}/${name}`, async () =>
        toPodInfo(await this.core.readNamespacedPod({ namespace, name })),
      );
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * Deletes a pod only if it still has this uid: a StatefulSet replacement reuses the name and
   * must never be deleted. Already gone (404) or replaced (uid conflict) both mean "done".
   */
  async deletePod(namespace: string, name: string, uid: string): Promise<DeleteOutcome> {
    try {
      const send = async (): Promise<DeleteOutcome> => {
        await this.call(
          `delete pod ${namespace}/${name}`,
          async () =>
            (await sendPodDelete(this.kubeConfig, { namespace, name, uid })) ??
            this.core.deleteNamespacedPod({ namespace, name, body: { preconditions: { uid } } }),
          NO_RETRY,
        );
        return 'deleted';
      };
      return await this.sendOnce({ namespace, name, uid }, send, 'deleted');
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof ConflictError) return 'gone';
      throw error;
    }
  }

  /** Evicts through the Eviction API, which honours PodDisruptionBudgets (429 → blocked). */
  async evictPod(namespace: string, name: string, uid: string): Promise<EvictOutcome> {
    const send = async (): Promise<EvictOutcome> => {
      try {
        await this.call(
          `evict pod ${namespace}/${name}`,
          () =>
            this.core.createNamespacedPodEviction({
              namespace,
              name,
              body: {
                apiVersion: 'policy/v1',
                kind: 'Eviction',
                metadata: { name, namespace },
                deleteOptions: { preconditions: { uid } },
              },
            }),
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
    try {
      return await this.sendOnce({ namespace, name, uid }, send, 'evicted');
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof ConflictError) return 'gone';
      throw error;
    }
  }

  /** A data key of a ConfigMap, or undefined when the ConfigMap or key does not exist yet. */
  async readConfigMapKey(ref: ObjectRef, key: string): Promise<string | undefined> {
    try {
      const configMap = await this.call(`read configmap ${ref.namespace}/${ref.name}`, () =>
        this.core.readNamespacedConfigMap(ref),
      );
      return configMap.data?.[key];
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /** The decoded bytes of a Secret's key, or undefined when absent. Never logged. */
  async readSecretKey(ref: ObjectRef, key: string): Promise<Buffer | undefined> {
    try {
      const secret = await this.call(`read secret ${ref.namespace}/${ref.name}`, () =>
        this.core.readNamespacedSecret(ref),
      );
      const encoded = secret.data?.[key];
      return encoded === undefined ? undefined : Buffer.from(encoded, 'base64');
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /** Records a core/v1 Event on the directive, shown by `kubectl describe pbd`. */
  async recordEvent(directive: Directive, event: DirectiveEvent): Promise<void> {
    const { name, namespace, uid, resourceVersion } = directive.metadata;
    const now = new Date();
    await this.call(`record event on directive ${namespace}/${name}`, () =>
      this.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { generateName: `${name}.`, namespace },
          involvedObject: {
            apiVersion: directive.apiVersion,
            kind: directive.kind,
            name,
            namespace,
            uid,
            resourceVersion,
          },
          type: event.type,
          reason: event.reason,
          message: event.message,
          source: { component: FIELD_MANAGER },
          reportingComponent: FIELD_MANAGER,
          reportingInstance: FIELD_MANAGER,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      }),
    );
  }

  /** Validates a service-account token with the TokenReview API. */
  async reviewToken(token: string, audience: string): Promise<ReviewedToken> {
    const review = await this.call('review a caller token', () =>
      this.authn.createTokenReview({
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token, audiences: [audience] },
        },
      }),
    );
    return {
      authenticated: review.status?.authenticated === true,
      username: review.status?.user?.username,
    };
  }
}

function isTooManyRequests(error: unknown): boolean {
  const cause = (error as { cause?: { code?: number } } | undefined)?.cause;
  return cause?.code === 429;
}
