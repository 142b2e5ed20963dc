import { checkGates, normalizeGates } from '../gates/validate.js';
import type { Problem } from '../problem.js';
import { isRecord } from '../records.js';
import { MAX_SELECTORS_CEILING } from './bounds.js';
import { parseMaxUnavailable } from './max-unavailable.js';
import {
  BOUNCE_MODES,
  type BounceMode,
  type DirectiveSpec,
  type PodSelector,
  type RootCertSync,
} from './types.js';
import { isLabelKey, isLabelValue, isNamespaceName, isObjectName } from './syntax.js';

export type { Problem } from '../problem.js';

const UINT32_MAX = 4_294_967_295;
/** An answer names this many problems at most: a body of thousands of bad selectors stays short. */
const MAX_PROBLEMS = 20;

function checkRef(value: unknown, field: string, problems: Problem[]): void {
  if (!isRecord(value)) {
    problems.push({ field, message: 'must be an object with name and namespace' });
    return;
  }
  if (typeof value.name !== 'string' || !isObjectName(value.name)) {
    problems.push({ field: `${field}.name`, message: 'must be a valid object name' });
  }
  if (typeof value.namespace !== 'string' || !isNamespaceName(value.namespace)) {
    problems.push({ field: `${field}.namespace`, message: 'must be a valid namespace name' });
  }
}

function checkRootCertSync(value: unknown, field: string, problems: Problem[]): void {
  if (!isRecord(value)) {
    problems.push({ field, message: 'must be an object' });
    return;
  }
  const sync = value as Partial<Record<keyof RootCertSync, unknown>>;
  checkRef(sync.secretRef, `${field}.secretRef`, problems);
  checkRef(sync.configMapRef, `${field}.configMapRef`, problems);
  for (const key of ['secretKey', 'configMapKey'] as const) {
    const item = sync[key];
    if (typeof item !== 'string' || !/^[-._a-zA-Z0-9]{1,253}$/.test(item)) {
      problems.push({ field: `${field}.${key}`, message: 'must be a valid data key' });
    }
  }
}

function checkLabels(value: unknown, field: string, problems: Problem[]): void {
  if (!isRecord(value)) {
    problems.push({ field, message: 'must be a map of label keys to values' });
    return;
  }
  for (const [key, labelValue] of Object.entries(value)) {
    if (!isLabelKey(key)) {
      problems.push({ field: `${field}.${key}`, message: 'is not a valid label key' });
    } else if (typeof labelValue !== 'string' || !isLabelValue(labelValue)) {
      problems.push({ field: `${field}.${key}`, message: 'is not a valid label value' });
    }
  }
}

function checkSelector(value: unknown, field: string, problems: Problem[]): void {
  if (!isRecord(value)) {
    problems.push({ field, message: 'must be an object' });
    return;
  }
  const selector = value as Partial<Record<keyof PodSelector, unknown>>;
  if (typeof selector.namespace !== 'string' || !isNamespaceName(selector.namespace)) {
    problems.push({ field: `${field}.namespace`, message: 'must be a valid namespace name' });
  }
  checkLabels(selector.labels ?? {}, `${field}.labels`, problems);
  const wait = selector.waitForReplicas ?? 0;
  if (typeof wait !== 'number' || !Number.isInteger(wait) || wait < 0 || wait > UINT32_MAX) {
    problems.push({
      field: `${field}.waitForReplicas`,
      message: 'must be a whole number from 0 to 4294967295',
    });
  }
  if (selector.rootCertSync !== undefined && selector.rootCertSync !== null) {
    checkRootCertSync(selector.rootCertSync, `${field}.rootCertSync`, problems);
  }
  checkExtensions(selector, field, problems);
}

function checkExtensions(
  selector: Partial<Record<keyof PodSelector, unknown>>,
  field: string,
  problems: Problem[],
): void {
  const { maxUnavailable, bounceMode, soakSeconds } = selector;
  if (
    soakSeconds != null &&
    (typeof soakSeconds !== 'number' ||
      !Number.isInteger(soakSeconds) ||
      soakSeconds < 0 ||
      soakSeconds > 86_400)
  ) {
    problems.push({
      field: `${field}.soakSeconds`,
      message: 'must be a whole number from 0 to 86400',
    });
  }
  if (maxUnavailable != null && parseMaxUnavailable(maxUnavailable) === undefined) {
    problems.push({
      field: `${field}.maxUnavailable`,
      message: 'must be a whole number of at least 1 or a percentage from "1%" to "100%"',
    });
  }
  if (bounceMode != null && !BOUNCE_MODES.includes(bounceMode as BounceMode)) {
    problems.push({
      field: `${field}.bounceMode`,
      message: `must be one of ${BOUNCE_MODES.join(', ')}`,
    });
  }
}

/** maxConcurrentSelectors: a whole number of at least 1 (MAX_SELECTORS bounds it at ingest). */
function checkConcurrency(value: unknown, problems: Problem[]): void {
  if (value == null) return;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1) {
    if (value <= MAX_SELECTORS_CEILING) return;
  }
  problems.push({
    field: 'spec.maxConcurrentSelectors',
    message: `must be a whole number from 1 to ${MAX_SELECTORS_CEILING}`,
  });
}

/**
 * Checks a directive spec the way the CRD schema and the API server would, plus the label and
 * name syntax that must hold before a selector string is built. Returns every problem found.
 */
export function validateSpec(spec: unknown): Problem[] {
  const problems: Problem[] = [];
  if (!isRecord(spec)) return [{ field: 'spec', message: 'must be an object' }];
  if (spec.meshRef !== undefined) checkRef(spec.meshRef, 'spec.meshRef', problems);
  checkGates(spec.gates, 'spec.gates', problems);
  checkConcurrency(spec.maxConcurrentSelectors, problems);
  const pods = spec.podsToBounce;
  if (!Array.isArray(pods) || pods.length === 0) {
    problems.push({ field: 'spec.podsToBounce', message: 'must list at least one pod selector' });
    return problems;
  }
  for (let index = 0; index < pods.length && problems.length < MAX_PROBLEMS; index += 1) {
    checkSelector(pods[index], `spec.podsToBounce[${index}]`, problems);
  }
  return problems.slice(0, MAX_PROBLEMS);
}

/** Fills defaults of a spec that passed validateSpec, so the rest of the code sees one shape. */
export function normalizeSpec(spec: DirectiveSpec): DirectiveSpec {
  return {
    ...(spec.meshRef ? { meshRef: spec.meshRef } : {}),
    ...(normalizeGates(spec.gates) ? { gates: normalizeGates(spec.gates) } : {}),
    ...(spec.maxConcurrentSelectors != null
      ? { maxConcurrentSelectors: spec.maxConcurrentSelectors }
      : {}),
    podsToBounce: spec.podsToBounce.map((selector) => ({
      namespace: selector.namespace,
      labels: selector.labels ?? {},
      waitForReplicas: selector.waitForReplicas ?? 0,
      ...(selector.rootCertSync ? { rootCertSync: selector.rootCertSync } : {}),
      ...(selector.maxUnavailable != null ? { maxUnavailable: selector.maxUnavailable } : {}),
      ...(selector.bounceMode != null ? { bounceMode: selector.bounceMode } : {}),
      ...(selector.soakSeconds != null ? { soakSeconds: selector.soakSeconds } : {}),
    })),
  };
}
