/**
 * A kubeconfig file read the way client-node's `KubeConfig.loadFromFile` reads it (the same
 * refusals: unreadable, not YAML, an entry without its required fields, a token file that cannot be
 * read), without loading client-node, which is slow to import: `serve` checks its kubeconfig before
 * it listens and loads client-node on first use. The YAML is parsed by client-node's own parser
 * (js-yaml, one copy for both), so that both see the same document. Only what start-up judges is
 * kept.
 */
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';

/** The contexts of a kubeconfig and where they point, as start-up judges them. */
export interface KubeconfigContexts {
  /** Context names, in file order. */
  names(): string[];
  hasContext(name: string): boolean;
  /** Whether `current-context` names a context whose cluster is defined. */
  currentHasCluster(): boolean;
}

type Entry = Record<string, unknown>;

const isEntry = (value: unknown): value is Entry =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** client-node skips a section that is not a list. */
function section(document: Entry, key: string): unknown[] {
  const value = document[key];
  return Array.isArray(value) ? value : [];
}

function named(item: unknown, where: string): Entry {
  if (!isEntry(item) || !item.name) throw new Error(`${where}.name is missing`);
  return item;
}

function nested(entry: Entry, key: string, where: string): Entry {
  const value = entry[key];
  if (!value) throw new Error(`${where}.${key} is missing`);
  return isEntry(value) ? value : {};
}

function checkClusters(document: Entry): Entry[] {
  return section(document, 'clusters').map((item, index) => {
    const where = `clusters[${index}]`;
    const entry = named(item, where);
    const server = nested(entry, 'cluster', where).server;
    if (!server) throw new Error(`${where}.cluster.server is missing`);
    if (typeof server !== 'string') throw new Error(`${where}.cluster.server is not a string`);
    return entry;
  });
}

/** client-node reads a user's token file as it loads the kubeconfig. */
function checkUsers(document: Entry): void {
  section(document, 'users').forEach((item, index) => {
    const where = `users[${index}]`;
    const user = named(item, where).user;
    if (!isEntry(user) || user.token || !user['token-file']) return;
    const tokenFile = user['token-file'];
    if (typeof tokenFile !== 'string') throw new Error(`${where}.user.token-file is not a path`);
    readFileSync(tokenFile);
  });
}

function checkContexts(document: Entry): Array<{ name: unknown; cluster: unknown }> {
  return section(document, 'contexts').map((item, index) => {
    const where = `contexts[${index}]`;
    const entry = named(item, where);
    const cluster = nested(entry, 'context', where).cluster;
    if (!cluster) throw new Error(`${where}.context.cluster is missing`);
    return { name: entry.name, cluster };
  });
}

/**
 * Reads and checks a kubeconfig file; throws what client-node would refuse it for. Names are
 * compared as client-node compares them (the first entry of that name wins).
 */
export function readKubeconfigFile(path: string): KubeconfigContexts {
  const parsed: unknown = load(readFileSync(path, 'utf8'));
  if (parsed === null || parsed === undefined) throw new Error('the file holds no kubeconfig');
  // Anything but a mapping has no sections: client-node loads it as an empty kubeconfig.
  const document = isEntry(parsed) ? parsed : {};
  const clusters = checkClusters(document);
  checkUsers(document);
  const contexts = checkContexts(document);
  const context = (name: unknown): { cluster: unknown } | undefined =>
    contexts.find((entry) => entry.name === name);
  return {
    names: () => contexts.map((entry) => String(entry.name)),
    hasContext: (name) => context(name) !== undefined,
    currentHasCluster(): boolean {
      const current = context(document['current-context']);
      return current !== undefined && clusters.some((entry) => entry.name === current.cluster);
    },
  };
}
