// The resources the simulator serves and how each behaves on write.
import { appsTypes } from './apps-types.js';
import { validateCoreEvent, validateEventsV1 } from './event-validation.js';
import type { CrdDefinition, PrinterColumn } from './crd.js';
import type { FieldError } from './field-errors.js';
import type { KubeObject } from './objects.js';
import { pruneAndDefault, validateRoot } from './schema.js';
import { normalizeSecret } from './secrets.js';

export type Verb = 'list' | 'watch' | 'get' | 'create' | 'update' | 'patch' | 'delete' | 'evict';

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

const READ: Verb[] = ['list', 'watch', 'get'];
const CRUD: Verb[] = [...READ, 'create', 'update', 'patch', 'delete'];

function core(plural: string, kind: string, extra: Partial<ResourceType> = {}): ResourceType {
  return {
    group: '',
    version: 'v1',
    plural,
    singular: kind.toLowerCase(),
    kind,
    namespaced: true,
    storeKey: plural,
    verbs: CRUD,
    ...extra,
  };
}

/** Every served resource; the PodBounceDirective type is built from the loaded CRD. */
export function resourceTypes(crd: CrdDefinition): ResourceType[] {
  return [
    core('pods', 'Pod', {
      verbs: [...READ, 'delete', 'evict'],
      deleteReturnsObject: true,
      shortNames: ['po'],
    }),
    core('configmaps', 'ConfigMap', { shortNames: ['cm'] }),
    core('secrets', 'Secret', { normalize: normalizeSecret }),
    core('events', 'Event', { validate: validateCoreEvent, shortNames: ['ev'] }),
    {
      ...core('events', 'Event', { validate: validateEventsV1 }),
      group: 'events.k8s.io',
      storeKey: 'events.k8s.io/events',
    },
    {
      ...core('poddisruptionbudgets', 'PodDisruptionBudget', { shortNames: ['pdb'] }),
      group: 'policy',
      statusSubresource: true,
      tracksGeneration: true,
    },
    {
      group: 'authentication.k8s.io',
      version: 'v1',
      plural: 'tokenreviews',
      singular: 'tokenreview',
      kind: 'TokenReview',
      namespaced: false,
      storeKey: 'tokenreviews',
      verbs: ['create'],
    },
    ...appsTypes(),
    directiveType(crd),
  ];
}

function directiveType(crd: CrdDefinition): ResourceType {
  return {
    group: crd.group,
    version: crd.version,
    plural: crd.plural,
    singular: crd.singular,
    kind: crd.kind,
    namespaced: true,
    storeKey: crd.plural,
    verbs: CRUD,
    shortNames: crd.shortNames,
    statusSubresource: crd.statusSubresource,
    tracksGeneration: true,
    custom: true,
    deleteReturnsObject: true,
    normalize: (obj) => pruneAndDefault(obj, crd.schema, true),
    validate: (obj) => validateRoot(obj, crd.schema),
    printerColumns: crd.printerColumns,
  };
}

export class ResourceRegistry {
  constructor(readonly types: ResourceType[]) {}

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.find(
      (t) => t.group === group && t.version === version && t.plural === plural,
    );
  }

  byStoreKey(storeKey: string): ResourceType {
    const type = this.types.find((t) => t.storeKey === storeKey);
    if (!type) throw new Error(`no resource type stored under ${storeKey}`);
    return type;
  }
}
