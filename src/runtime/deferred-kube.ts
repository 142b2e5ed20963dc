import type { Directive, ObjectRef } from '../directive/types.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { ReviewLane, TokenReviewAnswer, TokenReviewer } from '../kube/token-review.js';
import type { WatchCaches } from '../kube/watch-caches.js';
import type { StatusCalls } from '../status/writer.js';
import type { ApiKube, AppDeps } from '../ingress/deps.js';
import { KubeLoading } from '../ingress/reachability.js';

/** What the api uses of Kubernetes, made once client-node is loaded. */
export interface LoadedKube {
  gateway: KubeGateway;
  caches: WatchCaches;
  /** Present with WEBHOOK_TOKENREVIEW_AUDIENCE. */
  tokenReviewer: TokenReviewer | undefined;
}

/** The gateway's calls the api makes, every one of them waiting for the load but `ping`. */
type DeferredCall = Exclude<keyof ApiKube | keyof StatusCalls, 'ping'>;

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

  // The gateway's calls, each waiting for the load (never a probe's: `ping` is apart).
  readonly getDirective = this.deferred('getDirective');
  readonly applyDirective = this.deferred('applyDirective');
  readonly patchDirectiveStatus = this.deferred('patchDirectiveStatus');
  readonly recordEvent = this.deferred('recordEvent');
  readonly setPaused = this.deferred('setPaused');
  readonly listNamespacePods = this.deferred('listNamespacePods');
  readonly rolloutOwnerOf = this.deferred('rolloutOwnerOf');
  readonly readSecretKey = this.deferred('readSecretKey');
  readonly readConfigMapKey = this.deferred('readConfigMapKey');

  constructor(
    private readonly load: () => Promise<LoadedKube>,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** The gateway's own method `name`, called once the gateway is loaded. */
  private deferred<K extends DeferredCall>(name: K): KubeGateway[K] {
    const call = async (...args: unknown[]): Promise<unknown> => {
      const gateway = await this.gateway();
      return (gateway[name] as (...a: unknown[]) => Promise<unknown>).apply(gateway, args);
    };
    return call as KubeGateway[K];
  }

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
    issuerKeys: async (): Promise<unknown> => {
      const reviewer = (await this.side()).tokenReviewer;
      if (reviewer === undefined) throw new Error('no token reviewer without an audience');
      return reviewer.issuerKeys();
    },
  };

  /** Rejects with KubeLoading until loaded: a probe never waits for the load, nor starts it. */
  ping(): Promise<void> {
    if (this.loaded !== undefined) return this.loaded.gateway.ping();
    return Promise.reject(new KubeLoading('the Kubernetes client is not loaded yet'));
  }
}
