import type {
  Directive,
  DirectiveManifest,
  DirectiveStatus,
  ObjectRef,
} from '../directive/types.js';
import type { DirectiveEvent, KubeGateway } from '../kube/gateway.js';
import type { RolloutOwner } from '../kube/owners.js';
import type { PodInfo } from '../kube/pods.js';
import type { ReviewLane, TokenReviewAnswer, TokenReviewer } from '../kube/token-review.js';
import type { WatchCaches } from '../kube/watch-caches.js';
import type { StatusCalls } from '../status/writer.js';
import type { ApiKube, AppDeps } from './deps.js';

/** What the api uses of Kubernetes, made once client-node is loaded. */
export interface LoadedKube {
  gateway: KubeGateway;
  caches: WatchCaches;
  /** Present with WEBHOOK_TOKENREVIEW_AUDIENCE. */
  tokenReviewer: TokenReviewer | undefined;
}

/** A probe that came before the Kubernetes client was loaded. */
export class KubeLoading extends Error {
  override readonly name = 'KubeLoading';
}

/**
 * The api's Kubernetes side, loaded on first use. client-node takes longer to import than all the
 * rest of the api, and importing it holds the event loop: `serve` listens without it. The first
 * request that needs the API server loads it and waits; /readyz, which depends on Redis only,
 * never waits: until the client is loaded its body says `starting` for the Kubernetes API, and
 * once its answer is out it starts the load (`side()`). A load that fails ends the process with a
 * start-up sentence (`onFailure`, see main.ts): the requests waiting for it are never answered.
 */
export class DeferredKube implements ApiKube, StatusCalls {
  private loaded: LoadedKube | undefined;
  private loading: Promise<LoadedKube> | undefined;
  private ready: Promise<LoadedKube> | undefined;

  constructor(
    private readonly load: () => Promise<LoadedKube>,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** Starts the load (once); resolves when loaded, never when the load failed. */
  side(): Promise<LoadedKube> {
    if (this.ready === undefined) {
      this.loading = this.load();
      this.ready = this.loading.then(
        (side) => {
          this.loaded = side;
          return side;
        },
        (error: unknown) => {
          this.onFailure(error);
          return new Promise<never>(() => undefined);
        },
      );
    }
    return this.ready;
  }

  /** Stops the watch caches, if they were loaded. */
  async close(): Promise<void> {
    const side = await this.loading?.catch(() => undefined);
    await side?.caches.close();
  }

  private async gateway(): Promise<KubeGateway> {
    return (await this.side()).gateway;
  }

  /** The directive watch cache once loaded; until then every read goes to the API server. */
  readonly directives: NonNullable<AppDeps['directives']> = {
    peek: (ref: ObjectRef): Directive | undefined => this.loaded?.caches.directives.peek(ref),
    offer: (directive: Directive): void => this.loaded?.caches.directives.offer(directive),
  };

  readonly tokenReviewer: NonNullable<AppDeps['tokenReviewer']> = {
    review: async (
      token: string,
      audience: string,
      lane?: ReviewLane,
    ): Promise<TokenReviewAnswer | undefined> => {
      const reviewer = (await this.side()).tokenReviewer;
      if (reviewer === undefined) throw new Error('no token reviewer without an audience');
      return reviewer.review(token, audience, lane);
    },
  };

  /** Rejects with KubeLoading until loaded: a probe never waits for the load, nor starts it. */
  ping(): Promise<void> {
    if (this.loaded !== undefined) return this.loaded.gateway.ping();
    return Promise.reject(new KubeLoading('the Kubernetes client is not loaded yet'));
  }

  async getDirective(ref: ObjectRef): Promise<Directive> {
    return (await this.gateway()).getDirective(ref);
  }

  async applyDirective(manifest: DirectiveManifest, fieldManager: string): Promise<Directive> {
    return (await this.gateway()).applyDirective(manifest, fieldManager);
  }

  async patchDirectiveStatus(directive: Directive, status: DirectiveStatus): Promise<Directive> {
    return (await this.gateway()).patchDirectiveStatus(directive, status);
  }

  async recordEvent(directive: Directive, event: DirectiveEvent): Promise<void> {
    return (await this.gateway()).recordEvent(directive, event);
  }

  async setPaused(ref: ObjectRef, paused: boolean): Promise<Directive> {
    return (await this.gateway()).setPaused(ref, paused);
  }

  async listPods(namespace: string, labels: Record<string, string>): Promise<PodInfo[]> {
    return (await this.gateway()).listPods(namespace, labels);
  }

  async rolloutOwnerOf(
    namespace: string,
    controller: { kind: string; name: string },
  ): Promise<RolloutOwner | undefined> {
    return (await this.gateway()).rolloutOwnerOf(namespace, controller);
  }

  async readSecretKey(ref: ObjectRef, key: string): Promise<Buffer | undefined> {
    return (await this.gateway()).readSecretKey(ref, key);
  }

  async readConfigMapKey(ref: ObjectRef, key: string): Promise<string | undefined> {
    return (await this.gateway()).readConfigMapKey(ref, key);
  }
}
