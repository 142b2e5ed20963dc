import {
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import {
  DIRECTIVE_GROUP,
  DIRECTIVE_PLURAL,
  DIRECTIVE_VERSION,
  PAUSED_ANNOTATION,
  type Directive,
  type DirectiveManifest,
  type DirectiveStatus,
  type ObjectRef,
} from '../directive/types.js';
import { boundedText, EVENT_TEXT_BYTES } from '../bounded-text.js';
import { PermanentError, StatusRefusedError } from '../errors.js';
import { COMPONENT } from './field-manager.js';
import { namespacedPath, sendRaw } from './raw-request.js';
import type { KubeRequests } from './requests.js';

export interface DirectiveEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** What pod-bouncer does to its own resource: read it, apply it, write its status, tell people. */
export interface DirectiveOperations {
  getDirective(ref: ObjectRef): Promise<Directive>;
  applyDirective(
    manifest: DirectiveManifest,
    fieldManager: string,
    options?: ApplyOptions,
  ): Promise<Directive>;
  patchDirectiveStatus(directive: Directive, status: DirectiveStatus): Promise<Directive>;
  setPaused(ref: ObjectRef, paused: boolean): Promise<Directive>;
  observeDirectiveWrites(observer: (directive: Directive) => void): () => void;
  recordEvent(directive: Directive, event: DirectiveEvent): Promise<void>;
}

export interface ApplyOptions {
  /** `dryRun=All`: the API server answers as if it applied (conflicts included), changing nothing. */
  dryRun?: boolean;
}

const directiveApi = {
  group: DIRECTIVE_GROUP,
  version: DIRECTIVE_VERSION,
  plural: DIRECTIVE_PLURAL,
};

/** `/apis/<group>/<version>/namespaces/<namespace>/<plural>/<name>[/<subresource>]`. */
function directivePath(ref: ObjectRef, subresource?: string): string {
  const parts = [ref.namespace, DIRECTIVE_PLURAL, ref.name, ...(subresource ? [subresource] : [])];
  return `/apis/${DIRECTIVE_GROUP}/${DIRECTIVE_VERSION}/namespaces/${parts.map(encodeURIComponent).join('/')}`;
}

/**
 * Directives through the gateway's request machinery; see `KubeGateway` for the guarantees. The
 * calls every run makes (read, status patch, Event) go out as plain JSON (`raw-request.ts`).
 */
export class DirectiveClient implements DirectiveOperations {
  private readonly custom: CustomObjectsApi;
  private readonly directiveWrites = new Set<(directive: Directive) => void>();

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly requests: KubeRequests,
  ) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  async getDirective(ref: ObjectRef): Promise<Directive> {
    const what = `read directive ${ref.namespace}/${ref.name}`;
    const path = directivePath(ref);
    return this.requests.call({ verb: 'get', what }, async () => {
      return JSON.parse(await sendRaw(this.kubeConfig, { method: 'GET', path })) as Directive;
    });
  }

  /**
   * Creates or updates a directive by server-side apply as `fieldManager`, without force: a field
   * another field manager owns and this apply would change is a ConflictError (409) naming it, and
   * nothing changes. The server bumps generation on spec change. A dry run is judged the same way.
   */
  async applyDirective(
    manifest: DirectiveManifest,
    fieldManager: string,
    options: ApplyOptions = {},
  ): Promise<Directive> {
    const { name, namespace } = manifest.metadata;
    const what = `${options.dryRun ? 'dry-run ' : ''}apply directive ${namespace}/${name}`;
    return this.requests.call({ verb: 'patch', what }, async () => {
      const object: unknown = await this.custom.patchNamespacedCustomObject(
        {
          ...directiveApi,
          namespace,
          name,
          body: manifest,
          fieldManager,
          force: false,
          ...(options.dryRun ? { dryRun: 'All' } : {}),
        },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      );
      return object as Directive;
    });
  }

  /**
   * Merge-patches the status subresource. The patch carries `resourceVersion`, so a concurrent
   * writer makes this fail with ConflictError instead of being silently overwritten; a status the
   * API server refuses as invalid is a StatusRefusedError.
   */
  async patchDirectiveStatus(directive: Directive, status: DirectiveStatus): Promise<Directive> {
    const { name, namespace, resourceVersion } = directive.metadata;
    const what = `write status of directive ${namespace}/${name}`;
    const call = {
      method: 'PATCH' as const,
      path: directivePath({ namespace, name }, 'status'),
      body: JSON.stringify({ metadata: { resourceVersion }, status }),
      contentType: PatchStrategy.MergePatch,
    };
    try {
      return await this.requests.call({ verb: 'patch', what }, async () => {
        const written = JSON.parse(await sendRaw(this.kubeConfig, call)) as Directive;
        for (const observer of this.directiveWrites) observer(written);
        return written;
      });
    } catch (error) {
      if (!(error instanceof PermanentError) || error.httpStatus !== 422) throw error;
      // The cause a person reads in the FAILED status: what was refused, then the server's words.
      throw new StatusRefusedError(error.message.slice(what.length + 2), { cause: error });
    }
  }

  /**
   * Sets (`"true"`) or removes (`null`) the pause annotation with a merge patch of
   * `metadata.annotations` alone, which touches no other annotation and no field another manager
   * owns; `kubectl annotate` does the same. Idempotent, so a transient failure is retried.
   */
  async setPaused(ref: ObjectRef, paused: boolean): Promise<Directive> {
    const what = `${paused ? 'pause' : 'resume'} directive ${ref.namespace}/${ref.name}`;
    const body = { metadata: { annotations: { [PAUSED_ANNOTATION]: paused ? 'true' : null } } };
    return this.requests.call({ verb: 'patch', what }, async () => {
      const object: unknown = await this.custom.patchNamespacedCustomObject(
        // Named, so managedFields say pod-bouncer set it rather than the client library's name.
        {
          ...directiveApi,
          namespace: ref.namespace,
          name: ref.name,
          body,
          fieldManager: COMPONENT,
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      return object as Directive;
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

  /** Records a core/v1 Event on the directive, shown by `kubectl describe pbd`. */
  async recordEvent(directive: Directive, event: DirectiveEvent): Promise<void> {
    const { name, namespace } = directive.metadata;
    const what = `record event on directive ${namespace}/${name}`;
    const call = {
      method: 'POST' as const,
      path: namespacedPath(namespace, 'events'),
      body: JSON.stringify(eventBody(directive, event)),
    };
    await this.requests.call({ verb: 'create', what }, () => sendRaw(this.kubeConfig, call));
  }
}

/** A core/v1 Event about the directive, as `kubectl describe` lists it. */
function eventBody(directive: Directive, event: DirectiveEvent): object {
  const { name, namespace, uid, resourceVersion } = directive.metadata;
  const now = new Date().toISOString();
  return {
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
    message: boundedText(event.message, EVENT_TEXT_BYTES),
    source: { component: COMPONENT },
    reportingComponent: COMPONENT,
    reportingInstance: COMPONENT,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}
