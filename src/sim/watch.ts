// Watch streams: newline-delimited JSON events, resumable from a resourceVersion while the store's
// history reaches back that far (else one 410 Expired ERROR event, as from a compacted etcd).
import type { ServerResponse } from 'node:http';
import { badRequest, expired } from './api-errors.js';
import type { FieldSelector } from './field-selector.js';
import { matchesFields } from './field-selector.js';
import type { Selector } from './label-selector.js';
import { matchesSelector } from './label-selector.js';
import type { KubeObject } from './objects.js';
import { apiVersionOf } from './resources.js';
import type { ResourceType } from './resources.js';
import type { ObjectStore, StoreEvent } from './store.js';
import type { Timers } from './timers.js';
import { initialEventsEnd } from './watch-list.js';

export interface WatchOptions {
  type: ResourceType;
  /** Undefined watches every namespace. */
  namespace?: string;
  labels: Selector;
  fields: FieldSelector;
  resourceVersion?: string;
  timeoutSeconds?: number;
  bookmarks: boolean;
  /** A watch list's `sendInitialEvents` (`watch-list.ts`); undefined when not asked. */
  sendInitialEvents?: boolean;
  /** The event as the client asked to see it (a Table, `presentation.ts`); else as stored. */
  present?: (event: WireEvent) => WireEvent;
}

export interface WireEvent {
  type: string;
  object: unknown;
}

/** A watch's handler of the store's changes of its resource (and namespace, when it has one). */
type Subscriber = (event: StoreEvent) => void;

/** Subscribers of every namespace share this key. */
const ALL_NAMESPACES = '\u0000all';

/**
 * Each store change goes to the watches of its resource and namespace only: a simulated cluster
 * of many namespaces has hundreds of watches open, and most changes concern a few of them.
 */
class Subscribers {
  private readonly byResource = new Map<string, Map<string, Set<Subscriber>>>();

  add(storeKey: string, namespace: string | undefined, subscriber: Subscriber): () => void {
    let byNamespace = this.byResource.get(storeKey);
    if (byNamespace === undefined) {
      byNamespace = new Map();
      this.byResource.set(storeKey, byNamespace);
    }
    const key = namespace ?? ALL_NAMESPACES;
    let set = byNamespace.get(key);
    if (set === undefined) {
      set = new Set();
      byNamespace.set(key, set);
    }
    set.add(subscriber);
    return () => {
      set.delete(subscriber);
      if (set.size === 0) byNamespace.delete(key);
    };
  }

  deliver(event: StoreEvent): void {
    const byNamespace = this.byResource.get(event.key);
    if (byNamespace === undefined) return;
    for (const key of [event.object.metadata.namespace, ALL_NAMESPACES]) {
      const set = byNamespace.get(key);
      if (set !== undefined) for (const subscriber of [...set]) subscriber(event);
    }
  }
}

/** One JSON line per change and type, however many watches send it. */
const lines = new WeakMap<object, Map<string, string>>();

function line(event: WireEvent): string {
  const { object } = event;
  if (typeof object !== 'object' || object === null) return `${JSON.stringify(event)}\n`;
  let byType = lines.get(object);
  if (byType === undefined) {
    byType = new Map();
    lines.set(object, byType);
  }
  let text = byType.get(event.type);
  if (text === undefined) {
    text = `${JSON.stringify(event)}\n`;
    byType.set(event.type, text);
  }
  return text;
}

export class WatchHub {
  private readonly closers = new Set<() => void>();
  private readonly stallers = new Set<() => void>();
  /** While watches are held: the deliveries waiting for `release`, in order. */
  private held: Array<() => void> | undefined;
  private readonly subscribers = new Subscribers();

  constructor(
    private readonly store: ObjectStore,
    private readonly timers: Timers,
    private readonly bookmarkIntervalMs: number,
  ) {
    store.subscribe((event) => this.subscribers.deliver(event));
  }

  /** Starts a stream on `res`. Throws (before writing anything) when the request is invalid. */
  open(res: ServerResponse, options: WatchOptions): void {
    const initial = this.initialEvents(options);
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
    });
    res.flushHeaders();
    let stalled = false;
    const { present } = options;
    // A presented event is this watch's own: it is serialized for it alone.
    const encode = present ? (event: WireEvent) => `${JSON.stringify(present(event))}\n` : line;
    const send = (event: WireEvent): void => {
      if (!stalled && !res.writableEnded && !res.destroyed) res.write(encode(event));
    };
    // A lagging server's bookmarks lag with its events: one never overtakes what it stands for.
    const deliver = (event: WireEvent): void => {
      if (this.held) this.held.push(() => send(event));
      else send(event);
    };
    if (initial === 'expired') {
      const requested = options.resourceVersion ?? '';
      send({
        type: 'ERROR',
        object: expired(requested, this.store.oldestResourceVersion()).toStatus(),
      });
      res.end();
      return;
    }
    initial.forEach(send);
    const unsubscribe = this.subscribers.add(options.type.storeKey, options.namespace, (event) => {
      const translated = translate(event, options);
      if (translated !== undefined) deliver(translated);
    });
    const timeout = options.timeoutSeconds
      ? this.timers.after(options.timeoutSeconds * 1000, () => res.end())
      : undefined;
    const stopBookmarks = options.bookmarks
      ? this.bookmarkLoop(options.type, deliver)
      : (): void => undefined;
    const close = (): void => {
      if (!res.writableEnded) res.end();
    };
    const stall = (): void => {
      stalled = true;
    };
    this.closers.add(close);
    this.stallers.add(stall);
    res.on('close', () => {
      this.stallers.delete(stall);
      unsubscribe();
      this.timers.cancel(timeout);
      stopBookmarks();
      this.closers.delete(close);
    });
  }

  /** Holds back every live watch event until `release`: the lag of a busy API server. */
  hold(): () => void {
    this.held ??= [];
    return () => {
      const queued = this.held ?? [];
      this.held = undefined;
      for (const deliver of queued) deliver();
    };
  }

  /** Ends every open stream cleanly; clients see the watch finish and must re-watch. */
  dropAll(): void {
    for (const close of [...this.closers]) close();
  }

  /**
   * Every open stream goes silent for good (no events, no bookmarks) and stays open, as over a
   * half-open connection; streams opened later are not affected.
   */
  stallAll(): void {
    for (const stall of [...this.stallers]) stall();
  }

  private initialEvents(options: WatchOptions): WireEvent[] | 'expired' {
    const rv = options.resourceVersion;
    const fromNow = rv === undefined || rv === '' || rv === '0';
    if (rv !== undefined && !fromNow && !/^\d+$/.test(rv))
      throw badRequest(`invalid resource version: ${rv}`);
    if (options.sendInitialEvents === true) {
      // A watch list: the store is never older than any resourceVersion it handed out, so the
      // current state satisfies NotOlderThan whatever the version asked for.
      const end = options.bookmarks
        ? [initialEventsEnd(options.type, this.store.resourceVersion())]
        : [];
      return [...this.currentState(options), ...end];
    }
    if (fromNow) {
      // sendInitialEvents=false: from now on. No starting point at all: synthetic ADDED events
      // for the current state, then live changes.
      return options.sendInitialEvents === false ? [] : this.currentState(options);
    }
    const events = this.store.eventsSince(Number(rv));
    if (!events) return 'expired';
    return events
      .map((event) => translate(event, options))
      .filter((e): e is WireEvent => e !== undefined);
  }

  private currentState(options: WatchOptions): WireEvent[] {
    return this.store
      .list(options.type.storeKey, options.namespace)
      .filter((obj) => matches(obj, options))
      .map((object) => ({ type: 'ADDED', object }));
  }

  private bookmarkLoop(type: ResourceType, send: (event: WireEvent) => void): () => void {
    let handle: NodeJS.Timeout | undefined;
    const tick = (): void => {
      const metadata = { resourceVersion: this.store.resourceVersion() };
      send({
        type: 'BOOKMARK',
        object: { kind: type.kind, apiVersion: apiVersionOf(type), metadata },
      });
      handle = this.timers.after(this.bookmarkIntervalMs, tick);
    };
    handle = this.timers.after(this.bookmarkIntervalMs, tick);
    return () => this.timers.cancel(handle);
  }
}

function matches(obj: KubeObject, options: WatchOptions): boolean {
  return matchesSelector(options.labels, obj.metadata.labels) && matchesFields(options.fields, obj);
}

/**
 * A store change as this watcher sees it: an object entering the selection is ADDED, one leaving
 * it is DELETED, as the API server's watch cache reports label changes.
 */
function translate(event: StoreEvent, options: WatchOptions): WireEvent | undefined {
  if (event.key !== options.type.storeKey) return undefined;
  const { object } = event;
  if (options.namespace !== undefined && object.metadata.namespace !== options.namespace)
    return undefined;
  const now = matches(object, options);
  if (event.type !== 'MODIFIED') return now ? { type: event.type, object } : undefined;
  const before = event.previous !== undefined && matches(event.previous, options);
  if (now) return { type: before ? 'MODIFIED' : 'ADDED', object };
  return before ? { type: 'DELETED', object } : undefined;
}
