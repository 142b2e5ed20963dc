// Start-up reads the kubeconfig without client-node (it loads client-node only after listening):
// for each file, the verdict must be client-node's own, so that the start-up sentences stay true.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKubeconfigFile } from '../../src/kube/kubeconfig-file.js';

interface Verdict {
  refused: boolean;
  /** client-node's message, where it says what is wrong (not a TypeError of its own). */
  message?: string;
  names?: string[];
  hasSim?: boolean;
  hasOther?: boolean;
  currentHasCluster?: boolean;
}

const good = (extra = ''): string => `
apiVersion: v1
kind: Config
clusters:
  - name: sim
    cluster: { server: 'http://127.0.0.1:1/', insecure-skip-tls-verify: true }
users:
  - name: sim
    user: { token: t }
contexts:
  - name: sim
    context: { cluster: sim, user: sim }
current-context: sim
${extra}`;

const CASES: Record<string, string> = {
  'a working kubeconfig': good(),
  'a current-context that does not exist': good().replace(
    'current-context: sim',
    'current-context: gone',
  ),
  'no current-context': good().replace('current-context: sim', ''),
  'a context whose cluster is not defined': good().replace(
    '{ cluster: sim, user',
    '{ cluster: elsewhere, user',
  ),
  'a cluster without server': good().replace("server: 'http://127.0.0.1:1/', ", ''),
  'a cluster without name': good().replace('  - name: sim\n    cluster', '  - cluster'),
  'a cluster entry without cluster': good().replace(/cluster: \{ server[^}]*\}/, 'other: 1'),
  'a server that is not a string': good().replace("'http://127.0.0.1:1/'", '8080'),
  'a context without cluster': good().replace('{ cluster: sim, user: sim }', '{ user: sim }'),
  'a context without name': good().replace('  - name: sim\n    context', '  - context'),
  'a user without name': good().replace('  - name: sim\n    user', '  - user'),
  'a token file that does not exist': good().replace(
    '{ token: t }',
    '{ token-file: /nonexistent/token }',
  ),
  'a token beside a token file that does not exist': good().replace(
    '{ token: t }',
    '{ token: t, token-file: /nonexistent/token }',
  ),
  'a null entry': good().replace('clusters:\n', 'clusters:\n  - null\n'),
  'sections that are not lists': 'clusters: {}\ncontexts: 3\nusers: x\ncurrent-context: sim\n',
  'two contexts of one name (the first counts)': good().replace(
    'contexts:\n',
    'contexts:\n  - name: sim\n    context: { cluster: missing }\n',
  ),
  'numbers for names': good()
    .replace('  - name: sim\n    context', '  - name: 7\n    context')
    .replace('current-context: sim', 'current-context: 7'),
  'merge keys': `
base: &base { server: 'http://127.0.0.1:1/' }
clusters:
  - name: sim
    cluster: { <<: *base }
contexts:
  - name: sim
    context: { cluster: sim }
current-context: sim
`,
  'an unknown tag': good().replace(
    "server: 'http://127.0.0.1:1/'",
    "server: !custom 'http://127.0.0.1:1/'",
  ),
  'an empty file': '',
  'a scalar document': 'hello\n',
  'a list document': '- a\n- b\n',
  'YAML that does not parse': 'clusters: [\n',
  'two documents': `${good()}\n---\n${good()}`,
};

function clientNode(path: string): Verdict {
  const config = new KubeConfig();
  try {
    config.loadFromFile(path);
  } catch (error) {
    const message = (error as Error).message;
    return { refused: true, ...(/ is missing$/.test(message) ? { message } : {}) };
  }
  return {
    refused: false,
    names: config.getContexts().map((context) => String(context.name)),
    hasSim: config.getContextObject('sim') !== null,
    hasOther: config.getContextObject('other') !== null,
    currentHasCluster: config.getCurrentCluster() !== null,
  };
}

function ours(path: string): Verdict {
  let read;
  try {
    read = readKubeconfigFile(path);
  } catch (error) {
    const message = (error as Error).message;
    return { refused: true, ...(/ is missing$/.test(message) ? { message } : {}) };
  }
  return {
    refused: false,
    names: read.names(),
    hasSim: read.hasContext('sim'),
    hasOther: read.hasContext('other'),
    currentHasCluster: read.currentHasCluster(),
  };
}

describe('readKubeconfigFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pod-bouncer-kubeconfig-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it.each(Object.entries(CASES))('judges %s as client-node does', async (name, text) => {
    const path = join(dir, name.replace(/\W+/g, '-'));
    await writeFile(path, text);
    const theirs = clientNode(path);
    const mine = ours(path);
    // Where client-node fails on a TypeError of its own, ours may say better what is wrong.
    if (theirs.refused && theirs.message === undefined) delete mine.message;
    expect(mine).toEqual(theirs);
  });

  it('refuses what client-node refuses, with its reason', async () => {
    const path = join(dir, 'no-server');
    await writeFile(path, CASES['a cluster without server']!);
    expect(() => readKubeconfigFile(path)).toThrow('clusters[0].cluster.server is missing');
  });

  it('reads a token file that exists, as client-node does', async () => {
    const token = join(dir, 'token');
    await writeFile(token, 'secret');
    const path = join(dir, 'with-token-file');
    await writeFile(path, good().replace('{ token: t }', `{ token-file: ${token} }`));
    expect(ours(path)).toEqual(clientNode(path));
    expect(ours(path).refused).toBe(false);
  });
});
