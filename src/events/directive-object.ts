import {
  DIRECTIVE_API_VERSION,
  DIRECTIVE_KIND,
  type DirectiveManifest,
  type DirectiveSpec,
} from '../directive/types.js';
import { boundedText } from '../bounded-text.js';
import { normalizeSpec, validateSpec } from '../directive/validate.js';
import { BadEventError, InvalidDirectiveError } from './errors.js';
import { isRecord, parseRef } from './fields.js';

/** True for anything that looks like a PodBounceDirective object rather than a reference. */
export function looksLikeDirectiveObject(value: Record<string, unknown>): boolean {
  return value.kind === DIRECTIVE_KIND || (isRecord(value.metadata) && 'spec' in value);
}

/**
 * Labels may arrive as a proto-style list of `{key, value}` entries; they are stored as a map, so
 * a key given twice is refused (400, naming the entry) rather than the last one silently winning.
 * Anything else is left for validation to reject with the field's name.
 */
function labelsAsMap(labels: unknown, field: string): unknown {
  if (!Array.isArray(labels)) return labels;
  const entries = labels.map((entry: unknown) =>
    isRecord(entry) && typeof entry.key === 'string'
      ? [entry.key, entry.value]
      : [undefined, entry],
  );
  if (entries.some(([key]) => key === undefined)) return labels;
  const first = new Map<string, number>();
  entries.forEach(([key], index) => {
    const earlier = first.get(key as string);
    if (earlier !== undefined) {
      const shown = JSON.stringify(boundedText(key as string, 256));
      throw new BadEventError(
        `${field}[${index}].key`,
        `repeats the label key ${shown} of ${field}[${earlier}]; give each key once`,
      );
    }
    first.set(key as string, index);
  });
  return Object.fromEntries(entries as Array<[string, unknown]>);
}

function withMapLabels(spec: unknown, field: string): unknown {
  if (!isRecord(spec) || !Array.isArray(spec.podsToBounce)) return spec;
  return {
    ...spec,
    podsToBounce: spec.podsToBounce.map((selector: unknown, index) =>
      isRecord(selector) && 'labels' in selector
        ? {
            ...selector,
            labels: labelsAsMap(selector.labels, `${field}.podsToBounce[${index}].labels`),
          }
        : selector,
    ),
  };
}

/** Reads a whole directive object carried in an event into a manifest the API server can apply. */
export function parseDirectiveObject(
  value: Record<string, unknown>,
  field: string,
): DirectiveManifest {
  const apiVersion = value.apiVersion ?? DIRECTIVE_API_VERSION;
  const kind = value.kind ?? DIRECTIVE_KIND;
  if (apiVersion !== DIRECTIVE_API_VERSION) {
    throw new BadEventError(`${field}.apiVersion`, `must be ${DIRECTIVE_API_VERSION}`);
  }
  if (kind !== DIRECTIVE_KIND)
    throw new BadEventError(`${field}.kind`, `must be ${DIRECTIVE_KIND}`);
  const ref = parseRef(value.metadata, `${field}.metadata`);
  const spec = checkedSpec(withMapLabels(value.spec, `${field}.spec`));
  const labels =
    isRecord(value.metadata) && isRecord(value.metadata.labels) ? value.metadata.labels : undefined;
  return {
    apiVersion: DIRECTIVE_API_VERSION,
    kind: DIRECTIVE_KIND,
    metadata: { ...ref, ...(labels ? { labels: labels as Record<string, string> } : {}) },
    spec,
  };
}

/**
 * A spec as the CRD would accept it, with its defaults filled in; InvalidDirectiveError (422)
 * naming every offending field otherwise. Also for directives read from a cluster that may serve
 * the CRD without its schema.
 */
export function checkedSpec(spec: unknown): DirectiveSpec {
  const problems = validateSpec(spec);
  if (problems.length > 0) throw new InvalidDirectiveError(problems);
  return normalizeSpec(spec as DirectiveSpec);
}
