// A bounce mode is one record (src/workflow/modes/): its RBAC needs are held to the chart's
// ClusterRoles and to the docs that state them, so a new mode cannot ship without its rights.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { BOUNCE_MODES } from '../../src/directive/types.js';
import { STRATEGIES, type RbacRule } from '../../src/workflow/modes/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/**
 * The ClusterRoles of templates/rbac.yaml as YAML: lines that are only a template action dropped,
 * actions inside a line replaced by a placeholder (the rules themselves hold none).
 */
function clusterRoles(): Record<'api' | 'worker', Rule[]> {
  const text = readFileSync(`${root}/charts/pod-bouncer/templates/rbac.yaml`, 'utf8');
  const roles = text.slice(0, text.indexOf('{{- range $role'));
  const yaml = roles
    .split('\n')
    .filter((line) => !/^\s*\{\{.*\}\}\s*$/.test(line))
    .map((line) => line.replace(/\{\{.*?\}\}/g, 'x'))
    .join('\n');
  const [api, worker] = parseAllDocuments(yaml).map((doc) => doc.toJSON() as { rules: Rule[] });
  return { api: api!.rules, worker: worker!.rules };
}

function granted(rules: Rule[], need: RbacRule, resource: string, verb: string): boolean {
  return rules.some(
    (rule) =>
      rule.apiGroups.includes(need.apiGroup) &&
      rule.resources.includes(resource) &&
      rule.verbs.includes(verb),
  );
}

function missing(rules: Rule[], needs: readonly RbacRule[]): string[] {
  return needs.flatMap((need) =>
    need.resources.flatMap((resource) =>
      need.verbs
        .filter((verb) => !granted(rules, need, resource, verb))
        .map((verb) => `${verb} ${need.apiGroup || 'core'}/${resource}`),
    ),
  );
}

describe('bounce modes', () => {
  const roles = clusterRoles();

  it('are one record per name of BOUNCE_MODES', () => {
    expect(Object.keys(STRATEGIES).sort()).toEqual([...BOUNCE_MODES].sort());
    for (const mode of BOUNCE_MODES) expect(STRATEGIES[mode].mode).toBe(mode);
  });

  it.each(BOUNCE_MODES)('%s: the chart grants the worker and the api what it needs', (mode) => {
    const { rbac } = STRATEGIES[mode];
    expect(rbac.worker.length).toBeGreaterThan(0);
    expect(missing(roles.worker, rbac.worker)).toEqual([]);
    expect(missing(roles.api, rbac.api)).toEqual([]);
  });

  it('the api holds no right a mode needs only to bounce', () => {
    const apiNeeds = new Set(
      BOUNCE_MODES.flatMap((mode) => STRATEGIES[mode].rbac.api.flatMap((rule) => rule.resources)),
    );
    for (const mode of BOUNCE_MODES) {
      for (const rule of STRATEGIES[mode].rbac.worker) {
        const bounceOnly = rule.verbs.filter((verb) =>
          ['delete', 'create', 'patch'].includes(verb),
        );
        const held = rule.resources.filter((resource) => !apiNeeds.has(resource));
        const extra = { ...rule, resources: held, verbs: bounceOnly };
        expect(missing(roles.api, [extra])).toHaveLength(held.length * bounceOnly.length);
      }
    }
  });

  it('the CRD and the chart values offer exactly the modes there are', () => {
    const crd = readFileSync(`${root}/charts/pod-bouncer/crds/podbouncedirectives.yaml`, 'utf8');
    const enums = [...crd.matchAll(/bounceMode:\n(?:\s+\w+: .*\n)*?\s+enum: \[(.*)\]/g)];
    expect(enums.length).toBeGreaterThan(0);
    for (const [, list] of enums)
      expect(list!.split(', ').sort()).toEqual([...BOUNCE_MODES].sort());
    const schema = readFileSync(`${root}/charts/pod-bouncer/values.schema.json`, 'utf8');
    const values = JSON.parse(schema) as {
      properties: { config: { properties: { bounceMode: { enum: string[] } } } };
    };
    expect(values.properties.config.properties.bounceMode.enum.sort()).toEqual(
      [...BOUNCE_MODES].sort(),
    );
  });

  it('the docs name what rollout needs of the worker and of the api', () => {
    const concepts = readFileSync(`${root}/docs/concepts.md`, 'utf8').replace(/\s+/g, ' ');
    const { rbac } = STRATEGIES.rollout;
    for (const rule of [...rbac.worker, ...rbac.api].filter((need) => need.apiGroup === 'apps')) {
      for (const resource of rule.resources) expect(concepts).toContain(resource);
    }
    expect(concepts).toContain('the api, for dry runs, get on replicasets');
  });
});
