// Watch lists (KEP-3157): a watch with `sendInitialEvents=true` and
// `resourceVersionMatch=NotOlderThan` streams the current objects as ADDED events, then a BOOKMARK
// annotated `k8s.io/initial-events-end: "true"` at the resourceVersion they were read at, then the
// changes after it: one request instead of a LIST and a WATCH. client-go's reflector (kubectl
// wait, kubectl get -w) uses it and waits for that bookmark before it calls itself synced.
import { badRequest } from './api-errors.js';
import type { FieldError } from './field-errors.js';
import { invalidError } from './field-errors.js';
import { apiVersionOf } from './resources.js';
import type { ResourceType } from './resources.js';

export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

const NOT_OLDER_THAN = 'NotOlderThan';
const EXACT = 'Exact';

function flag(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw badRequest(`invalid value for ${name}: "${value}": must be true or false`);
}

const forbidden = (field: string, detail: string): FieldError => ({
  type: 'Forbidden',
  field,
  detail,
});

/**
 * A watch's `sendInitialEvents`, held to the API server's ListOptions validation (apimachinery
 * meta/internalversion/validation `validateWatchOptions`): it needs
 * `resourceVersionMatch=NotOlderThan`, and that match is allowed on a watch only beside it.
 */
export function sendInitialEventsOf(query: URLSearchParams): boolean | undefined {
  const send = flag(query, 'sendInitialEvents');
  const match = query.get('resourceVersionMatch') ?? '';
  const errors: FieldError[] = [];
  if (send !== undefined && match !== NOT_OLDER_THAN) {
    errors.push(
      forbidden(
        'resourceVersionMatch',
        `sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}`,
      ),
    );
  }
  if (match !== '') {
    if (send === undefined) {
      errors.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        ),
      );
    }
    if (match !== NOT_OLDER_THAN) errors.push(unsupportedMatch(match, [NOT_OLDER_THAN]));
  }
  throwIfAny(errors);
  return send;
}

/** A list's options, as `ValidateListOptions` holds them: sendInitialEvents is for watches. */
export function validateListOptions(query: URLSearchParams): void {
  const errors: FieldError[] = [];
  const match = query.get('resourceVersionMatch') ?? '';
  if (match !== '') {
    if ((query.get('resourceVersion') ?? '') === '') {
      errors.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        ),
      );
    }
    if (match !== EXACT && match !== NOT_OLDER_THAN)
      errors.push(unsupportedMatch(match, [EXACT, NOT_OLDER_THAN, '']));
  }
  if (flag(query, 'sendInitialEvents') !== undefined)
    errors.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  throwIfAny(errors);
}

function unsupportedMatch(value: string, supported: string[]): FieldError {
  return { type: 'NotSupported', field: 'resourceVersionMatch', value, supported };
}

function throwIfAny(errors: FieldError[]): void {
  if (errors.length > 0)
    throw invalidError({ kind: 'ListOptions', group: 'meta.k8s.io', name: '' }, errors);
}

/** The bookmark that closes the initial events: the resourceVersion they are a snapshot of. */
export function initialEventsEnd(
  type: ResourceType,
  resourceVersion: string,
): { type: 'BOOKMARK'; object: object } {
  return {
    type: 'BOOKMARK',
    object: {
      kind: type.kind,
      apiVersion: apiVersionOf(type),
      metadata: { resourceVersion, annotations: { [INITIAL_EVENTS_END]: 'true' } },
    },
  };
}
