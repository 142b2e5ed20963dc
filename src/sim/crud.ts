// The generic verbs every stored resource supports.
import { notFound, qualifiedResource } from './api-errors.js';
import { parseFieldSelector } from './field-selector.js';
import { matchesFields } from './field-selector.js';
import { matchesSelector, parseLabelSelector } from './label-selector.js';
import { preconditionsOf } from './object-meta.js';
import type { Patcher } from './patching.js';
import type { ApiRequest, Reply } from './requests.js';
import { isDryRun, ok } from './requests.js';
import { apiVersionOf } from './resources.js';
import type { ObjectStore } from './store.js';
import { sendInitialEventsOf, validateListOptions } from './watch-list.js';
import type { ObjectWriter } from './writes.js';

export class CrudHandlers {
  constructor(
    private readonly store: ObjectStore,
    private readonly writer: ObjectWriter,
    private readonly patcher: Patcher,
  ) {}

  list(req: ApiRequest): Reply {
    validateListOptions(req.query);
    const labels = parseLabelSelector(req.query.get('labelSelector'));
    const fields = parseFieldSelector(req.query.get('fieldSelector'));
    const items = this.store.list(
      req.type.storeKey,
      req.namespace || undefined,
      (obj) => matchesSelector(labels, obj.metadata.labels) && matchesFields(fields, obj),
    );
    return ok({
      apiVersion: apiVersionOf(req.type),
      kind: `${req.type.kind}List`,
      metadata: { resourceVersion: this.store.resourceVersion() },
      items,
    });
  }

  watch(req: ApiRequest): Reply {
    const timeout = Number(req.query.get('timeoutSeconds') ?? '');
    const sendInitialEvents = sendInitialEventsOf(req.query);
    return {
      watch: {
        type: req.type,
        namespace: req.namespace || undefined,
        labels: parseLabelSelector(req.query.get('labelSelector')),
        fields: parseFieldSelector(req.query.get('fieldSelector')),
        resourceVersion: req.query.get('resourceVersion') ?? undefined,
        timeoutSeconds: Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
        bookmarks: req.query.get('allowWatchBookmarks') === 'true',
        ...(sendInitialEvents === undefined ? {} : { sendInitialEvents }),
      },
    };
  }

  get(req: ApiRequest): Reply {
    const name = req.path.name ?? '';
    const found = this.store.get(req.type.storeKey, req.namespace, name);
    if (!found) throw notFound(qualifiedResource(req.type.plural, req.type.group), name);
    return ok(found);
  }

  create(req: ApiRequest): Reply {
    const created = this.writer.create(req.type, req.namespace, req.body, isDryRun(req.query));
    this.patcher.recordUpdate(req, undefined, created);
    return ok(created, 201);
  }

  update(req: ApiRequest): Reply {
    const name = req.path.name ?? '';
    const current = this.store.get(req.type.storeKey, req.namespace, name);
    if (!current) throw notFound(qualifiedResource(req.type.plural, req.type.group), name);
    const updated = this.writer.update(req.type, current, req.body, {
      subresource: req.path.subresource,
      requireResourceVersion: req.type.custom,
      dryRun: isDryRun(req.query),
    });
    this.patcher.recordUpdate(req, current, updated);
    return ok(updated);
  }

  patch(req: ApiRequest): Reply {
    return this.patcher.patch(req);
  }

  delete(req: ApiRequest): Reply {
    const { type, namespace } = req;
    const name = req.path.name ?? '';
    const dryRun = isDryRun(req.query);
    const removed = this.writer.remove(type, namespace, name, {
      preconditions: preconditionsOf(req.body),
      dryRun,
    });
    if (!dryRun) this.patcher.forget(type, namespace, name);
    if (type.deleteReturnsObject) return ok(removed);
    return ok({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name, group: type.group, kind: type.plural, uid: removed.metadata.uid },
    });
  }
}
