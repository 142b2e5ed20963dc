// Static checks of the deployment artefacts, by reading them: the chart's values and templates, the
// Dockerfile and docker-compose.yml (no Docker engine runs here). The chart as Helm renders it is
// held to the program in test/integration/chart-render.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../../src/config/variables.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

type Tree = Record<string, unknown>;

function read(path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const chartFiles = filesUnder(join(root, 'charts')).map((path) => relative(root, path));
const yamlFiles = chartFiles.filter(
  (path) => /\.ya?ml$/.test(path) && !path.split('/').includes('templates'),
);
const templateFiles = chartFiles.filter((path) =>
  /\/templates\/[^/]+\.(ya?ml|tpl|txt)$/.test(path),
);
const templates = templateFiles.map((path) => ({ path, text: read(path) }));
const values = parse(read('charts/pod-bouncer/values.yaml')) as Tree;
// The one value an install must give (its RBAC reaches every namespace): every namespace, chosen.
(values.config as Tree).allowedNamespaces = ['*'];
const schema = JSON.parse(read('charts/pod-bouncer/values.schema.json')) as Tree;

function validator(): (data: unknown) => boolean {
  // Helm validates with draft-07; union types (a count or a percentage) are valid draft-07.
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  return ajv.compile(schema);
}

/** A copy of values.yaml with one value replaced (path segments, last one the key). */
function valuesWith(path: string[], value: unknown): Tree {
  const copy = structuredClone(values);
  let node: Tree = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Tree;
  node[path.at(-1)!] = value;
  return copy;
}

function hasPath(tree: Tree, path: string[]): boolean {
  let node: unknown = tree;
  for (const key of path) {
    if (!isTree(node) || !Object.hasOwn(node, key)) return false;
    node = node[key];
  }
  return true;
}

describe('chart and compose YAML', () => {
  it('finds the chart files', () => {
    expect(yamlFiles).toContain('charts/pod-bouncer/Chart.yaml');
    expect(yamlFiles).toContain('charts/pod-bouncer/values.yaml');
    expect(yamlFiles).toContain('charts/pod-bouncer/crds/podbouncedirectives.yaml');
    expect(templateFiles.length).toBeGreaterThan(5);
  });

  it.each([...yamlFiles, 'docker-compose.yml'])('%s parses', (path) => {
    const docs = parseAllDocuments(read(path));
    const list = Array.isArray(docs) ? docs : [docs];
    expect(list.length).toBeGreaterThan(0);
    for (const doc of list) expect(doc.errors.map(String)).toEqual([]);
  });

  it('Chart.yaml names the chart and the app version of package.json', () => {
    const chart = parse(read('charts/pod-bouncer/Chart.yaml')) as Tree;
    const pkg = JSON.parse(read('package.json')) as { version: string };
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'pod-bouncer', version: '0.1.0' });
    expect(chart.appVersion).toBe(pkg.version);
  });
});

describe('values.schema.json', () => {
  const validate = validator();

  it('is draft-07 and closed at the top level', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.additionalProperties).toBe(false);
  });

  it('accepts values.yaml', () => {
    expect(validate(values)).toBe(true);
  });

  it('describes every top-level value', () => {
    const properties = Object.keys(schema.properties as Tree);
    for (const key of Object.keys(values)) expect(properties).toContain(key);
  });

  it.each([
    ['a string where a number belongs', ['config', 'workerConcurrency'], 'ten'],
    ['a number where a boolean belongs', ['keda', 'enabled'], 1],
    ['a value outside the enum', ['config', 'bounceMode'], 'restart'],
    ['a value outside the range pod-bouncer accepts', ['config', 'pollIntervalMs'], 5],
    ['a negative KEDA replica count', ['keda', 'minReplicaCount'], -1],
    ['an unknown top-level value', ['replicas'], 3],
    ['a token given as a plain value', ['auth', 'tokens'], 'secret'],
    ['a Redis URL with another scheme', ['redis', 'external', 'url'], 'http://redis:6379'],
    ['a namespace that is not a DNS label', ['config', 'allowedNamespaces'], ['Kube_System']],
    ['MAX_SELECTORS of 0', ['config', 'maxSelectors'], 0],
  ])('rejects %s', (_what, path, value) => {
    expect(validate(valuesWith(path, value))).toBe(false);
  });

  it('refuses a dashboard Ingress without TLS', () => {
    const ingress = values.ingress as Tree;
    const enabled = valuesWith(['ingress'], { ...ingress, enabled: true });
    expect(validate(enabled)).toBe(false);
    const withTls = valuesWith(['ingress'], {
      ...ingress,
      enabled: true,
      tls: [{ hosts: ['pb.example.com'], secretName: 'pb-tls' }],
    });
    expect(validate(withTls)).toBe(true);
  });
});

/** The YAML documents of a template, split on `---` (template directives stay in the text). */
function documentsOf(file: string): string[] {
  return read(`charts/pod-bouncer/templates/${file}`).split(/^---$/m);
}

/** The ClusterRole of one role, found by the name suffix the template gives it. */
function clusterRole(role: 'api' | 'worker'): string {
  const found = documentsOf('rbac.yaml').find(
    (doc) => /^kind: ClusterRole$/m.test(doc) && doc.includes(`clusterRoleName" . }}-${role}\n`),
  );
  expect(found, `ClusterRole of the ${role}`).toBeDefined();
  return found!;
}

describe('least privilege in the chart', () => {
  it('gives the api and the worker service accounts of their own', () => {
    const accounts = read('charts/pod-bouncer/templates/serviceaccount.yaml');
    expect(accounts).toContain('range $role := list "api" "worker"');
    expect(accounts).toContain('printf "pod-bouncer.%sServiceAccountName" $role');
    const api = read('charts/pod-bouncer/templates/deployment-api.yaml');
    const worker = read('charts/pod-bouncer/templates/deployment-worker.yaml');
    const knative = read('charts/pod-bouncer/templates/knative-service.yaml');
    expect(api).toContain(
      'serviceAccountName: {{ include "pod-bouncer.apiServiceAccountName" . }}',
    );
    expect(knative).toContain(
      'serviceAccountName: {{ include "pod-bouncer.apiServiceAccountName" . }}',
    );
    expect(worker).toContain(
      'serviceAccountName: {{ include "pod-bouncer.workerServiceAccountName" . }}',
    );
    const bindings = read('charts/pod-bouncer/templates/rbac.yaml');
    expect(bindings).toMatch(/kind: ClusterRoleBinding[\s\S]*-\{\{ \$role \}\}\n/);
    expect(bindings).toContain(
      'name: {{ include (printf "pod-bouncer.%sServiceAccountName" $role) $ }}',
    );
  });

  it('lets only the worker bounce pods', () => {
    const api = clusterRole('api');
    expect(api).toMatch(/resources: \[pods\]\n\s+verbs: \[get, list\]\n/);
    expect(api).not.toMatch(/delete/);
    expect(api).not.toContain('pods/eviction');
    // The one apps/v1 read of the api: a dry run finds a ReplicaSet's Deployment as the worker does.
    expect(
      [
        ...api.matchAll(/apiGroups: \[apps\]\n\s+resources: \[([^\]]*)\]\n\s+verbs: \[([^\]]*)\]/g),
      ].map(([, resources, verbs]) => `${resources}: ${verbs}`),
    ).toEqual(['replicasets: get']);
    expect(api.match(/apiGroups: \[apps\]/g)).toHaveLength(1);
    expect(api).toMatch(
      /resources: \[podbouncedirectives\]\n\s+verbs: \[get, list, watch, create, patch\]/,
    );
    expect(api).toMatch(
      /resources: \[podbouncedirectives\/status\]\n\s+verbs: \[get, patch, update\]/,
    );
    expect(api).toMatch(/resources: \[tokenreviews\]\n\s+verbs: \[create\]/);
    expect(api).toMatch(/resources: \[events\]\n\s+verbs: \[create, patch\]/);

    const worker = clusterRole('worker');
    expect(worker).toMatch(/resources: \[pods\]\n\s+verbs: \[get, list, watch, delete\]/);
    expect(worker).toMatch(/resources: \[pods\/eviction\]\n\s+verbs: \[create\]/);
    expect(worker).toMatch(
      /apiGroups: \[apps\]\n\s+resources: \[deployments, statefulsets, daemonsets\]\n\s+verbs: \[get, patch\]/,
    );
    // get: a rollout's owners, and a ReplicaSet's scale until its watch (list, watch) has listed.
    expect(worker).toMatch(
      /apiGroups: \[apps\]\n\s+resources: \[replicasets\]\n\s+verbs: \[get, list, watch\]/,
    );
    expect(worker).not.toContain('tokenreviews');
  });

  it('reads Secrets by name only, and only when names are given', () => {
    const rbac = read('charts/pod-bouncer/templates/rbac.yaml');
    const secretRules = [
      ...rbac.matchAll(/resources: \[secrets\]\n(\s+verbs: [^\n]+)\n(\s+[^\n]+)/g),
    ];
    expect(secretRules.length).toBeGreaterThanOrEqual(3);
    for (const [, verbs, next] of secretRules) {
      expect(verbs!.trim()).toBe('verbs: [get]');
      expect(next!.trim()).toBe('resourceNames:');
    }
    // No names, no Secret rule: the rules sit inside conditions on rbac.secretNames.
    expect(rbac).toContain('$clusterSecrets := and $rbac.secretNames (not $rbac.secretNamespaces)');
    expect(rbac).toContain('if and $rbac.secretNames $rbac.secretNamespaces');
    expect(rbac).toMatch(/kind: Role\n[\s\S]*namespace: \{\{ \$namespace \}\}/);
    expect((values.rbac as Tree).secretNames).toEqual([]);
  });

  it('protects the built-in Redis with a generated password kept across upgrades', () => {
    const secret = read('charts/pod-bouncer/templates/secret-redis-auth.yaml');
    expect(secret).toContain('lookup "v1" "Secret" .Release.Namespace $name');
    expect(secret).toContain('randAlphaNum 40');
    expect(secret).toContain('index $live.data $key | b64dec');
    const redis = read('charts/pod-bouncer/templates/redis.yaml');
    // The password goes into a config file on an in-memory volume, never onto a command line.
    expect(redis).not.toContain('--requirepass');
    expect(redis).toContain(
      `printf 'requirepass "%s"\\n' "$REDIS_PASSWORD" > /run/redis/auth.conf`,
    );
    expect(redis).toContain('exec redis-server /run/redis/auth.conf');
    expect(redis).toMatch(/- name: auth\n\s+emptyDir:\n\s+medium: Memory/);
    expect(redis).toContain('name: {{ include "pod-bouncer.redisAuthSecretName" . }}');
    const helpers = read('charts/pod-bouncer/templates/_helpers.tpl');
    expect(helpers).toContain('redis://:$(REDIS_PASSWORD)@%s:6379');
    expect(helpers).not.toMatch(/value: \{\{ printf "redis:\/\/%s:6379"/);
  });

  it('limits egress of the api and the worker to DNS, Redis and the API server', () => {
    const helpers = read('charts/pod-bouncer/templates/_helpers.tpl');
    const rules = helpers.slice(helpers.indexOf('define "pod-bouncer.egressRules"'));
    const next = rules.indexOf('{{- define', 1);
    const body = next > 0 ? rules.slice(0, next) : rules;
    const ports = [...body.matchAll(/- port: ([^\n]+)/g)].map((m) => m[1]!.trim());
    expect(ports).toEqual([
      '53',
      '53',
      '6379',
      '{{ $np.redis.port }}',
      '{{ $np.redis.sentinelPort }}',
      '{{ . }}',
    ]);
    // Nothing else but the operator's own rules, which the chart cannot know.
    expect(body).toMatch(/\{\{- with \$np\.extraEgress \}\}\n# [^\n]*\n\{\{ toYaml \. \}\}/);
    expect(body).not.toMatch(/^- \{\}$/m);
    const policies = read('charts/pod-bouncer/templates/networkpolicy.yaml');
    expect(policies.match(/policyTypes: \[Ingress, Egress\]/g)).toHaveLength(3);
    expect(policies.match(/include "pod-bouncer.egressRules"/g)).toHaveLength(2);
  });
});

describe('templates', () => {
  it('use only .Values paths that values.yaml defines', () => {
    const missing: string[] = [];
    for (const { path, text } of templates) {
      for (const match of text.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
        const keys = match[1]!.slice(1).split('.');
        if (!hasPath(values, keys)) missing.push(`${path}: .Values.${keys.join('.')}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('set only environment variables pod-bouncer reads', () => {
    // Every variable the program reads is declared once, in the configuration's one list.
    const known = new Set<string>(VARIABLES.map((variable) => variable.name));
    // Chart-internal: spliced into REDIS_URL by Kubernetes, read by redis-cli in the Redis pod, and
    // read by Node itself (the heap cap).
    const internal = new Set(['REDIS_PASSWORD', 'REDISCLI_AUTH', 'NODE_OPTIONS']);
    const names = templates.flatMap(({ text }) =>
      [...text.matchAll(/^\s*- name: ([A-Z][A-Z0-9_]*)\s*$/gm)].map((m) => m[1]!),
    );
    expect(names).toContain('WEBHOOK_TOKENS');
    expect(names.filter((name) => !known.has(name) && !internal.has(name))).toEqual([]);
  });

  it('take secret values only from Secrets', () => {
    const secretNames = [
      'WEBHOOK_TOKENS',
      'WEBHOOK_HMAC_SECRET',
      'DASHBOARD_USER',
      'DASHBOARD_PASSWORD',
      'REDIS_PASSWORD',
      'REDISCLI_AUTH',
    ];
    const plain: string[] = [];
    for (const { path, text } of templates) {
      const lines = text.split('\n');
      lines.forEach((line, index) => {
        const name = /^\s*- name: ([A-Z][A-Z0-9_]*)\s*$/.exec(line)?.[1];
        if (name === undefined || !secretNames.includes(name)) return;
        const [next, nextButOne] = [lines[index + 1] ?? '', lines[index + 2] ?? ''];
        if (!/^\s*valueFrom:\s*$/.test(next) || !/^\s*secretKeyRef:\s*$/.test(nextButOne)) {
          plain.push(`${path}:${index + 1} ${name}`);
        }
      });
    }
    expect(plain).toEqual([]);
  });

  it('scale the worker on the lists of the queue the code uses', () => {
    const queue = /QUEUE_NAME = '([^']+)'/.exec(read('src/queue/names.ts'))?.[1];
    expect(queue).toBe('bounce');
    const keda = read('charts/pod-bouncer/templates/keda.yaml');
    expect(keda).toContain(`printf "%s:${queue}:%s" $prefix $list`);
    // Every selector job is queued with a priority (its namespace's turn): prioritized counts.
    expect(keda).toContain('list "wait" "prioritized" "delayed" "active"');
    expect(keda).toContain('formula: waiting + prioritized + delayed + active');
    expect(keda).toContain('kind: ScaledObject');
  });

  it('grant the RBAC the design asks for', () => {
    const rbac = read('charts/pod-bouncer/templates/rbac.yaml');
    for (const rule of [
      /resources: \[pods\]\n\s+verbs: \[get, list, watch, delete\]/,
      /resources: \[pods\/eviction\]\n\s+verbs: \[create\]/,
      /resources: \[podbouncedirectives\/status\]\n\s+verbs: \[get, patch, update\]/,
      /apiGroups: \["", events\.k8s\.io\]\n\s+resources: \[events\]\n\s+verbs: \[create, patch\]/,
      /apiGroups: \[authentication\.k8s\.io\]\n\s+resources: \[tokenreviews\]\n\s+verbs: \[create\]/,
      /kind: ClusterRole\n\s+name: system:service-account-issuer-discovery/,
    ]) {
      expect(rbac).toMatch(rule);
    }
  });

  it('harden the api and worker containers', () => {
    const security = values.containerSecurityContext as Tree;
    expect(security).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    for (const file of ['deployment-api.yaml', 'deployment-worker.yaml', 'knative-service.yaml']) {
      const text = read(`charts/pod-bouncer/templates/${file}`);
      expect(text).toContain('toYaml .Values.containerSecurityContext');
      expect(text).toContain('mountPath: /tmp');
    }
  });

  it('start the roles by name under the image entrypoint', () => {
    expect(read('charts/pod-bouncer/templates/deployment-api.yaml')).toContain('args: [serve]');
    expect(read('charts/pod-bouncer/templates/deployment-worker.yaml')).toContain('args: [work]');
    expect(read('charts/pod-bouncer/templates/knative-service.yaml')).toContain('args: [serve]');
  });

  it('give the built-in Redis AOF and noeviction', () => {
    const redis = read('charts/pod-bouncer/templates/redis.yaml');
    expect(redis).toContain('--appendonly yes --maxmemory-policy noeviction');
  });
});

describe('conventional values, Redis topologies and monitoring', () => {
  const template = (file: string): string => read(`charts/pod-bouncer/templates/${file}`);

  it('name per-role values the way popular charts do', () => {
    for (const role of ['api', 'worker']) {
      for (const key of [
        'replicaCount',
        'revisionHistoryLimit',
        'priorityClassName',
        'podAnnotations',
        'nodeSelector',
        'tolerations',
        'affinity',
      ]) {
        expect(hasPath(values, [role, key]), `${role}.${key}`).toBe(true);
      }
      const text = template(`deployment-${role}.yaml`);
      expect(text).toContain(`replicas: {{ .Values.${role}.replicaCount }}`);
      expect(text).toContain(`revisionHistoryLimit: {{ .Values.${role}.revisionHistoryLimit }}`);
      expect(text).toContain(`{{- with .Values.${role}.priorityClassName }}`);
    }
    expect(hasPath(values, ['api', 'replicas'])).toBe(false);
  });

  it('pin the image by digest when one is given', () => {
    const validate = validator();
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(validate(valuesWith(['image', 'digest'], digest))).toBe(true);
    expect(validate(valuesWith(['image', 'digest'], 'latest'))).toBe(false);
    expect(read('charts/pod-bouncer/templates/_helpers.tpl')).toContain(
      'printf "%s@%s" .Values.image.repository .Values.image.digest',
    );
  });

  it('point at Redis Sentinel or Cluster instead of REDIS_URL', () => {
    const validate = validator();
    expect(validate(valuesWith(['redisSentinel', 'sentinels'], ['s-0:26379', 's-1:26379']))).toBe(
      true,
    );
    expect(validate(valuesWith(['redisSentinel', 'sentinels'], ['s-0']))).toBe(false);
    expect(validate(valuesWith(['redisCluster', 'nodes'], ['r-0:6379']))).toBe(true);
    const helpers = read('charts/pod-bouncer/templates/_helpers.tpl');
    for (const name of [
      'REDIS_SENTINELS',
      'REDIS_SENTINEL_NAME',
      'REDIS_SENTINEL_PASSWORD',
      'REDIS_CLUSTER_NODES',
      'REDIS_USERNAME',
      'REDIS_TLS',
    ]) {
      expect(helpers).toContain(`- name: ${name}\n`);
    }
    // Exactly one Redis source, and Cluster needs a hash-tagged prefix: said in one sentence each.
    expect(helpers).toContain('redisSentinel.enabled=true or redisCluster.enabled=true.');
    expect(helpers).toMatch(/config\.queuePrefix must carry a hash tag/);
  });

  it('scrape both roles with a ServiceMonitor or a PodMonitor, keeping the metrics own labels', () => {
    const monitors = template('servicemonitor.yaml');
    expect(monitors).toContain('kind: ServiceMonitor');
    expect(monitors).toContain('kind: PodMonitor');
    expect(monitors).toContain('range $role := list "api" "worker"');
    expect(monitors).toContain('ternary "http" "metrics" (eq $role "api")');
    expect(monitors.match(/honorLabels: true/g)).toHaveLength(2);
    // The ports those names refer to.
    expect(template('deployment-api.yaml')).toMatch(/- name: http\n\s+containerPort: 8080/);
    expect(template('deployment-worker.yaml')).toMatch(/- name: metrics\n\s+containerPort: 8080/);
    expect(hasPath(values, ['serviceMonitor', 'enabled'])).toBe(true);
    expect(hasPath(values, ['podMonitor', 'enabled'])).toBe(true);
  });

  it('fill every placeholder of the alert rules from values', () => {
    const rules = read('charts/pod-bouncer/files/prometheus-rules.yaml');
    const placeholders = new Set([...rules.matchAll(/__[A-Z_]+__/g)].map((m) => m[0]));
    const replaced = new Set(
      [...template('prometheusrule.yaml').matchAll(/replace "(__[A-Z_]+__)"/g)].map((m) => m[1]),
    );
    expect([...placeholders].sort()).toEqual([...replaced].sort());
    expect(template('prometheusrule.yaml')).toContain('kind: PrometheusRule');
    expect(values.prometheusRule).toMatchObject({ enabled: false, stuckMinutes: 30 });
  });

  it('ship the Grafana dashboard in a ConfigMap the sidecar finds', () => {
    const text = template('grafana-dashboard.yaml');
    expect(text).toContain('grafana_dashboard: "1"');
    expect(text).toContain('.Files.Get "files/grafana-dashboard.json"');
    const dashboard = JSON.parse(read('charts/pod-bouncer/files/grafana-dashboard.json')) as Tree;
    expect(dashboard.uid).toBe('pod-bouncer');
  });

  it('send notifications to a receiver named by a Secret', () => {
    const helpers = read('charts/pod-bouncer/templates/_helpers.tpl');
    expect(helpers).toMatch(/- name: NOTIFY_URL\n\s+valueFrom:\n\s+secretKeyRef:/);
    expect(values.notifications).toMatchObject({ format: 'cloudevents' });
  });
});

describe('the CRD', () => {
  const crd = parse(read('charts/pod-bouncer/crds/podbouncedirectives.yaml')) as {
    spec: {
      group: string;
      scope: string;
      names: { kind: string; plural: string; shortNames?: string[] };
      versions: {
        name: string;
        storage: boolean;
        subresources?: { status?: object };
        additionalPrinterColumns?: { name: string; jsonPath: string }[];
      }[];
    };
  };
  const version = crd.spec.versions.find((v) => v.storage)!;

  it('is internal.gloo.solo.io/v2 PodBounceDirective, namespaced', () => {
    expect(crd.spec.group).toBe('internal.gloo.solo.io');
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toMatchObject({
      kind: 'PodBounceDirective',
      plural: 'podbouncedirectives',
    });
    expect(version.name).toBe('v2');
  });

  it('has the short name pbd and the status subresource', () => {
    expect(crd.spec.names.shortNames).toContain('pbd');
    expect(version.subresources?.status).toEqual({});
  });

  it('prints STATE, READY, MESSAGE and AGE, and BOUNCED with -o wide', () => {
    const columns = version.additionalPrinterColumns ?? [];
    expect(columns.map((c) => c.name.toUpperCase())).toEqual([
      'STATE',
      'READY',
      'MESSAGE',
      'AGE',
      'BOUNCED',
    ]);
    expect(columns.map((c) => c.jsonPath)).toEqual([
      '.status.state',
      '.status.conditions[?(@.type=="Ready")].status',
      '.status.conditions[?(@.type=="Ready")].message',
      '.metadata.creationTimestamp',
      expect.stringMatching(/^\.status\.podsBounced/),
    ]);
    expect(columns.map((c) => (c as { priority?: number }).priority ?? 0)).toEqual([0, 0, 0, 0, 1]);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const lines = dockerfile.split('\n').filter((line) => !/^\s*#/.test(line));
  const stages = lines
    .join('\n')
    .split(/^FROM /m)
    .slice(1);
  const runtime = stages.at(-1)!;

  it('builds in stages and ships production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/npm ci\b/);
    expect(dockerfile).toMatch(/npm run build/);
    expect(dockerfile).toMatch(/npm ci [^\n]*--omit=dev/);
    expect(runtime).toMatch(/COPY .*dist/);
    expect(runtime).toMatch(/COPY .*charts\/pod-bouncer\/crds/);
  });

  it('runs as a non-root user', () => {
    const user = /^USER\s+(\S+)/m.exec(runtime)?.[1];
    expect(user).toBeDefined();
    expect(user!.split(':')[0]).not.toMatch(/^(root|0)$/);
  });

  it('checks /healthz with node and exposes 8080', () => {
    expect(runtime).toMatch(/^HEALTHCHECK\b[\s\S]*\/healthz/m);
    expect(runtime).toMatch(/^EXPOSE 8080$/m);
  });

  it('starts node dist/cli.js directly, never through npx', () => {
    expect(runtime).toMatch(/^ENTRYPOINT \["node", "dist\/cli\.js"\]$/m);
    expect(runtime).toMatch(/^CMD \["all"\]$/m);
    expect(dockerfile).not.toMatch(/\bnpx\b/);
  });

  it('carries the OCI image labels, the version matching package.json', () => {
    const labels = [...dockerfile.matchAll(/org\.opencontainers\.image\.([a-z.]+)=/g)].map(
      (m) => m[1],
    );
    for (const name of [
      'title',
      'description',
      'version',
      'revision',
      'created',
      'source',
      'licenses',
    ]) {
      expect(labels).toContain(name);
    }
    const version = (JSON.parse(read('package.json')) as { version: string }).version;
    expect(dockerfile).toContain(`ARG VERSION=${version}`);
  });

  it('caps the heap with NODE_OPTIONS below the chart worker memory limit', () => {
    const options = /^ENV\s+NODE_OPTIONS="([^"]*)"/m.exec(runtime)?.[1];
    expect(options).toBeDefined();
    const oldSpace = Number(/--max-old-space-size=(\d+)\b/.exec(options!)?.[1]);
    const semiSpace = Number(/--max-semi-space-size=(\d+)\b/.exec(options!)?.[1] ?? 16);
    expect(oldSpace).toBeGreaterThan(0);
    const worker = values.worker as { resources: { limits: { memory: string } } };
    const limit = /^(\d+)Mi$/.exec(worker.resources.limits.memory)?.[1];
    expect(limit).toBeDefined();
    // The young generation is three semi-spaces (two for scavenges, one for promotion).
    expect(oldSpace + 3 * semiSpace).toBeLessThan(Number(limit));
  });

  it('limits glibc malloc arenas', () => {
    expect(runtime).toMatch(/^ENV MALLOC_ARENA_MAX=[1-4]$/m);
  });

  it('keeps the build context small with .dockerignore', () => {
    const ignore = read('.dockerignore');
    expect(ignore).toMatch(/^\*$/m);
    expect(ignore).toMatch(/^!charts\/pod-bouncer\/crds\/?$/m);
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, Tree & { command?: string[]; environment?: Tree }>;
  };
  const { redis, api, worker, demo } = compose.services;

  it('runs Redis with AOF and noeviction, as the service the README names', () => {
    const command = (redis?.command ?? []).join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(redis?.healthcheck).toMatchObject({ test: ['CMD', 'redis-cli', 'ping'] });
  });

  it('runs the api and the worker against it, with the kubeconfig mounted read-only', () => {
    expect(api?.command).toEqual(['serve']);
    expect(worker?.command).toEqual(['work']);
    for (const service of [api, worker]) {
      expect(service?.environment).toMatchObject({
        REDIS_URL: 'redis://redis:6379',
        KUBECONFIG: '/kube/config',
      });
      expect(service?.volumes).toEqual([
        expect.objectContaining({ target: '/kube/config', read_only: true }),
      ]);
      expect(service?.depends_on).toMatchObject({ redis: { condition: 'service_healthy' } });
    }
    expect(api?.environment).toHaveProperty('WEBHOOK_TOKENS');
  });

  it('offers the demo under a profile', () => {
    expect(demo?.command).toEqual(['demo']);
    expect(demo?.profiles).toEqual(['demo']);
  });
});
