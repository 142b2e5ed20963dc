// The resources the simulator serves and how each behaves on write.
import { appsTypes } from './apps-types.js';
import { validateCoreEvent, validateEventsV1 } from './event-validation.js';
import type { CrdDefinition } from './crd.js';
import { namespacedResource, type ResourceType, type Verb } from './resource-type.js';
import { pruneAndDefault, validateRoot } from './schema.js';
import { normalizeSecret } from './secrets.js';

export { apiVersionOf, type ResourceType, type Verb } from './resource-type.js';

const READ: Verb[] = ['list', 'watch', 'get'];
const CRUD: Verb[] = [...READ, 'create', 'update', 'patch', 'delete'];

function core(plural: string, kind: string, extra: Partial<ResourceType> = {}): ResourceType {
  return { ...namespacedResource('', 'v1', plural, kind), verbs: CRUD, ...extra };
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
    ...namespacedResource(crd.group, crd.version, crd.plural, crd.kind),
    singular: crd.singular,
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

  /** The types served under one group version (none: the simulator does not serve it). */
  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.types.filter((t) => t.group === group && t.version === version);
  }

  byStoreKey(storeKey: string): ResourceType {
    const type = this.types.find((t) => t.storeKey === storeKey);
    if (!type) throw new Error(`no resource type stored under ${storeKey}`);
    return type;
  }
}
