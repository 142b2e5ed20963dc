import { Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { rawWatch } from './raw-watch.js';

/** Why a watch stream ended (the `reason` label of pod_bouncer_watch_restarts_total). */
export type StreamEnd = 'closed' | 'timeout' | 'expired' | 'error' | 'silent';

/** What an informer learns from its watch streams. */
export interface StreamObserver {
  /** A stream is connected (after the list, when ListWatch listed first). */
  opened(): void;
  /** An event or a bookmark arrived. */
  heard(bookmark: boolean): void;
  /** The stream ended; ListWatch resumes or lists again on its own, or reports an error. */
  ended(reason: StreamEnd): void;
}

/** As client-node's Watch: a stream silent this long is ended, and ListWatch resumes it. */
const WATCH_TIMEOUT_MS = 30_000;

type Params = Parameters<Watch['watch']>[1];
type Callback = Parameters<Watch['watch']>[2];
type Done = Parameters<Watch['watch']>[3];

/**
 * client-node's `Watch` as `ListWatch` drives it (each stream read by `rawWatch`), observed: it
 * asks for bookmarks (so a healthy stream is never silent much longer than the server's bookmark
 * period), tells its observer when a stream connects, carries data and ends, and can end the
 * current stream as a 410 Gone would, which makes `ListWatch` list afresh (deletions included)
 * and watch from the new list.
 */
export class ObservedWatch extends Watch {
  private endCurrent: ((error: unknown, reason?: StreamEnd) => void) | undefined;

  constructor(
    kubeConfig: KubeConfig,
    private readonly observer: StreamObserver,
    /** What the caller keeps of each changed object (ADDED, MODIFIED, DELETED). */
    private readonly trim?: (object: KubernetesObject) => KubernetesObject,
  ) {
    super(kubeConfig);
  }

  override async watch(
    path: string,
    queryParams: Params,
    callback: Callback,
    done: Done,
  ): Promise<AbortController> {
    let ended = false;
    let expired = false;
    const end = (error: unknown, reason?: StreamEnd): void => {
      if (ended) return;
      ended = true;
      if (this.endCurrent === end) this.endCurrent = undefined;
      this.observer.ended(reason ?? (expired ? 'expired' : reasonOf(error)));
      done(error);
    };
    const trim = this.trim;
    const heard: Callback = (phase, object: { code?: unknown } | undefined, raw) => {
      if (phase === 'ERROR' && object?.code === 410) expired = true;
      this.observer.heard(phase === 'BOOKMARK');
      const changed = phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED';
      const kept =
        changed && trim !== undefined && object !== undefined
          ? trim(object as KubernetesObject)
          : object;
      callback(phase, kept, raw);
    };
    const params = { ...queryParams, allowWatchBookmarks: true };
    const controller =
      (await rawWatch(
        this.config,
        { path, queryParams: params, timeoutMs: WATCH_TIMEOUT_MS },
        heard,
        end,
      )) ?? (await super.watch(path, params, heard, end));
    // Only a connected stream can be ended from here: ListWatch then holds its controller.
    if (!ended) {
      this.endCurrent = end;
      this.observer.opened();
    }
    return controller;
  }

  /** Ends the connected stream as a 410 Gone: ListWatch lists again. False when none is open. */
  relist(): boolean {
    const end = this.endCurrent;
    if (end === undefined) return false;
    const gone = Object.assign(new Error('watch silent for too long'), { statusCode: 410 });
    end(gone, 'silent');
    return true;
  }
}

function reasonOf(error: unknown): StreamEnd {
  if (error === null || error === undefined) return 'closed';
  const failure = error as { name?: unknown; statusCode?: unknown; code?: unknown };
  if (failure.name === 'TimeoutError') return 'timeout';
  if (failure.statusCode === 410 || failure.code === 410) return 'expired';
  return 'error';
}
