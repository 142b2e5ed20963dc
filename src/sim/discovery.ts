// Discovery documents and namespaces: enough for clients that probe the server before using it.
import { createHash } from 'node:crypto';
import type { GroupVersion } from './resource-type.js';
import type { ResourceRegistry, ResourceType } from './resources.js';

const STARTED = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export function versionInfo(): object {
  return {
    major: '1',
    minor: '35',
    gitVersion: 'v1.35.0-sim',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: STARTED,
    goVersion: 'go1.25.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function coreVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

export function groupList(registry: ResourceRegistry): object {
  const groups = new Map<string, string>();
  for (const type of registry.types) if (type.group) groups.set(type.group, type.version);
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups].map(([name, version]) => {
      const groupVersion = { groupVersion: `${name}/${version}`, version };
      return { name, versions: [groupVersion], preferredVersion: groupVersion };
    }),
  };
}

/** The APIResourceList of a group version, or undefined when the simulator does not serve it. */
export function resourceList(registry: ResourceRegistry, served: GroupVersion): object | undefined {
  const { group, version } = served;
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  const resources = types.flatMap((type) => describe(type));
  if (group === '') resources.push(namespaceResource());
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

function describe(type: ResourceType): object[] {
  const main = {
    name: type.plural,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: type.verbs.filter((v) => v !== 'evict'),
    ...(type.shortNames ? { shortNames: type.shortNames } : {}),
  };
  const subresources: object[] = [];
  if (type.statusSubresource) {
    subresources.push({
      name: `${type.plural}/status`,
      singularName: '',
      namespaced: true,
      kind: type.kind,
      verbs: ['get', 'patch', 'update'],
    });
  }
  if (type.verbs.includes('evict')) {
    subresources.push({
      name: `${type.plural}/eviction`,
      singularName: '',
      namespaced: true,
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
      verbs: ['create'],
    });
  }
  return [main, ...subresources];
}

function namespaceResource(): object {
  return {
    name: 'namespaces',
    singularName: 'namespace',
    namespaced: false,
    kind: 'Namespace',
    verbs: ['get', 'list'],
    shortNames: ['ns'],
  };
}

/** Every namespace exists in the simulator; its uid is derived from its name so it is stable. */
export function namespaceObject(name: string): object {
  const digest = createHash('sha256').update(name).digest('hex');
  const uid = `${digest.slice(0, 8)}-${digest.slice(8, 12)}-${digest.slice(12, 16)}-${digest.slice(16, 20)}-${digest.slice(20, 32)}`;
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name,
      uid,
      resourceVersion: '1',
      creationTimestamp: STARTED,
      labels: { 'kubernetes.io/metadata.name': name },
    },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

export function namespaceList(names: Iterable<string>, resourceVersion: string): object {
  const all = new Set(['default', 'kube-system', 'kube-public', ...names]);
  return {
    apiVersion: 'v1',
    kind: 'NamespaceList',
    metadata: { resourceVersion },
    items: [...all].sort().map(namespaceObject),
  };
}
