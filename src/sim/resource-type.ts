// What the simulator knows of a resource it serves, and the fields most resources share.
import type { PrinterColumn } from './crd.js';
import type { FieldError } from './field-errors.js';
import type { KubeObject } from './objects.js';

export type Verb = 'list' | 'watch' | 'get' | 'create' | 'update' | 'patch' | 'delete' | 'evict';

/** An API group and version, `''` being the core group. */
export interface GroupVersion {
  group: string;
  version: string;
}

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  /** Bucket in the object store (events of both API groups are kept apart). */
  storeKey: string;
  verbs: readonly Verb[];
  shortNames?: string[];
  /** Writes to the main resource ignore .status; writes to /status change only .status. */
  statusSubresource?: boolean;
  /** metadata.generation starts at 1 and grows by one whenever .spec changes. */
  tracksGeneration?: boolean;
  /** Custom resources: strategic merge patch is not supported. */
  custom?: boolean;
  /** DELETE answers with the object (pods, custom resources) instead of a Success Status. */
  deleteReturnsObject?: boolean;
  /** Normalises an object about to be stored (pruning, defaults, encodings). */
  normalize?: (obj: KubeObject) => void;
  validate?: (obj: KubeObject) => FieldError[];
  /** Custom resources: the CRD's additionalPrinterColumns, which server-side printing shows. */
  printerColumns?: PrinterColumn[];
}

export function apiVersionOf(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** A namespaced resource stored under its plural, whose singular is its kind in lower case. */
export function namespacedResource(
  group: string,
  version: string,
  plural: string,
  kind: string,
): Pick<
  ResourceType,
  'group' | 'version' | 'plural' | 'singular' | 'kind' | 'namespaced' | 'storeKey'
> {
  return {
    group,
    version,
    plural,
    singular: kind.toLowerCase(),
    kind,
    namespaced: true,
    storeKey: plural,
  };
}
