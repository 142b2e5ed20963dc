// The apps/v1 resources: Deployments, ReplicaSets, StatefulSets and DaemonSets, with the API
// server's defaults (SetDefaults_*) and the validation a rollout depends on.
import type { FieldError } from './field-errors.js';
import { matchesSelector, selectorFromObject } from './label-selector.js';
import type { KubeObject } from './objects.js';
import { isPlainObject } from './objects.js';
import { namespacedResource, type ResourceType, type Verb } from './resource-type.js';

const VERBS: Verb[] = ['list', 'watch', 'get', 'create', 'update', 'patch', 'delete'];
const DEFAULT_ROLLING = { maxSurge: '25%', maxUnavailable: '25%' };

function appsType(
  plural: string,
  kind: string,
  shortNames: string[],
  defaults: (spec: Record<string, unknown>) => void,
): ResourceType {
  return {
    ...namespacedResource('apps', 'v1', plural, kind),
    verbs: VERBS,
    shortNames,
    statusSubresource: true,
    tracksGeneration: true,
    normalize: (obj) => {
      if (!isPlainObject(obj.spec)) obj.spec = {};
      defaults(obj.spec as Record<string, unknown>);
    },
    validate: validateWorkload,
  };
}

export function appsTypes(): ResourceType[] {
  return [
    appsType('deployments', 'Deployment', ['deploy'], (spec) => {
      spec.replicas ??= 1;
      spec.revisionHistoryLimit ??= 10;
      spec.progressDeadlineSeconds ??= 600;
      const strategy = object(spec, 'strategy');
      strategy.type ??= 'RollingUpdate';
      if (strategy.type === 'RollingUpdate') {
        strategy.rollingUpdate = { ...DEFAULT_ROLLING, ...object(strategy, 'rollingUpdate') };
      }
    }),
    appsType('replicasets', 'ReplicaSet', ['rs'], (spec) => {
      spec.replicas ??= 1;
    }),
    appsType('statefulsets', 'StatefulSet', ['sts'], (spec) => {
      spec.replicas ??= 1;
      spec.podManagementPolicy ??= 'OrderedReady';
      spec.revisionHistoryLimit ??= 10;
      const strategy = object(spec, 'updateStrategy');
      strategy.type ??= 'RollingUpdate';
      if (strategy.type === 'RollingUpdate') {
        strategy.rollingUpdate = { partition: 0, ...object(strategy, 'rollingUpdate') };
      }
    }),
    appsType('daemonsets', 'DaemonSet', ['ds'], (spec) => {
      spec.revisionHistoryLimit ??= 10;
      const strategy = object(spec, 'updateStrategy');
      strategy.type ??= 'RollingUpdate';
      if (strategy.type === 'RollingUpdate') {
        strategy.rollingUpdate = {
          maxUnavailable: 1,
          maxSurge: 0,
          ...object(strategy, 'rollingUpdate'),
        };
      }
    }),
  ];
}

function object(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = parent[key];
  if (isPlainObject(value)) return value;
  const fresh: Record<string, unknown> = {};
  parent[key] = fresh;
  return fresh;
}

function validateWorkload(obj: KubeObject): FieldError[] {
  const spec = obj.spec as Record<string, unknown>;
  const errors: FieldError[] = [];
  const replicas = spec.replicas;
  if (replicas !== undefined && (!Number.isInteger(replicas) || (replicas as number) < 0)) {
    errors.push({
      type: 'Invalid',
      field: 'spec.replicas',
      value: replicas,
      detail: 'must be greater than or equal to 0',
    });
  }
  const selector = spec.selector;
  if (!isPlainObject(selector) || Object.keys(selector).length === 0) {
    errors.push({ type: 'Required', field: 'spec.selector' });
    return errors;
  }
  const template = isPlainObject(spec.template) ? spec.template : {};
  const meta = isPlainObject(template.metadata) ? template.metadata : {};
  const labels = isPlainObject(meta.labels) ? (meta.labels as Record<string, string>) : {};
  if (!matchesSelector(selectorFromObject(selector), labels)) {
    errors.push({
      type: 'Invalid',
      field: 'spec.template.metadata.labels',
      value: labels,
      detail: '`selector` does not match template `labels`',
    });
  }
  return errors;
}
