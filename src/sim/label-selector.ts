// Label selectors with the grammar of k8s.io/apimachinery/pkg/labels: `a=b`, `a==b`, `a!=b`,
// `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`; commas are AND.
import { badRequest } from './api-errors.js';

export type Requirement =
  | { key: string; op: 'exists' | 'absent' }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'gt' | 'lt'; bound: number };

export type Selector = Requirement[];

const NAME = '[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?';
const KEY = `(?:[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?/)?${NAME}`;
const VALUE_RE = new RegExp(`^(?:${NAME})?$`);
const EXISTS_RE = new RegExp(`^(!?)\\s*(${KEY})$`);
const EQUALITY_RE = new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*(\\S*)$`);
const SET_RE = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^()]*)\\)$`);
const COMPARE_RE = new RegExp(`^(${KEY})\\s*([<>])\\s*(-?\\d+)$`);

/** Parses a labelSelector query parameter; a syntax error is a 400 like the API server's. */
export function parseLabelSelector(text: string | null | undefined): Selector {
  if (!text || !text.trim()) return [];
  return splitTopLevel(text).map((part) => parseRequirement(part.trim(), text));
}

export function selectorFromLabels(labels: Record<string, string>): Selector {
  return Object.entries(labels).map(([key, value]) => ({ key, op: 'in', values: [value] }));
}

interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** Converts a metav1.LabelSelector (as in a PodDisruptionBudget) into requirements. */
export function selectorFromObject(selector: LabelSelectorObject | undefined): Selector {
  const requirements = selectorFromLabels(selector?.matchLabels ?? {});
  for (const expr of selector?.matchExpressions ?? []) {
    const op = expr.operator.toLowerCase();
    if (op === 'in' || op === 'notin')
      requirements.push({ key: expr.key, op, values: expr.values ?? [] });
    else requirements.push({ key: expr.key, op: op === 'exists' ? 'exists' : 'absent' });
  }
  return requirements;
}

export function matchesSelector(
  selector: Selector,
  labels: Record<string, string> | undefined,
): boolean {
  return selector.every((req) => matchesRequirement(req, labels ?? {}));
}

function matchesRequirement(req: Requirement, labels: Record<string, string>): boolean {
  const value = Object.hasOwn(labels, req.key) ? labels[req.key] : undefined;
  switch (req.op) {
    case 'exists':
      return value !== undefined;
    case 'absent':
      return value === undefined;
    case 'in':
      return value !== undefined && req.values.includes(value);
    case 'notin':
      return value === undefined || !req.values.includes(value);
    default:
      return value !== undefined && compares(req.op, value, req.bound);
  }
}

function compares(op: 'gt' | 'lt', value: string, bound: number): boolean {
  if (!/^-?\d+$/.test(value)) return false;
  return op === 'gt' ? Number(value) > bound : Number(value) < bound;
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

type RequirementParser = (part: string) => Requirement | undefined;

const PARSERS: RequirementParser[] = [
  (part) => {
    const [, bang, key] = EXISTS_RE.exec(part) ?? [];
    return key ? { key, op: bang ? 'absent' : 'exists' } : undefined;
  },
  (part) => {
    const [, key, op, value = ''] = EQUALITY_RE.exec(part) ?? [];
    if (!key || !VALUE_RE.test(value)) return undefined;
    return { key, op: op === '!=' ? 'notin' : 'in', values: [value] };
  },
  (part) => {
    const [, key, op, list = ''] = SET_RE.exec(part) ?? [];
    const values = list.split(',').map((v) => v.trim());
    if (!key || !values.every((v) => VALUE_RE.test(v))) return undefined;
    return { key, op: op === 'notin' ? 'notin' : 'in', values };
  },
  (part) => {
    const [, key, op, bound] = COMPARE_RE.exec(part) ?? [];
    return key ? { key, op: op === '>' ? 'gt' : 'lt', bound: Number(bound) } : undefined;
  },
];

function parseRequirement(part: string, whole: string): Requirement {
  for (const parse of PARSERS) {
    const requirement = parse(part);
    if (requirement) return requirement;
  }
  throw badRequest(`unable to parse requirement: found '${part}', in selector '${whole}'`);
}
