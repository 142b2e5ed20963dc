// The checks the API server applies to Events, so a client that would be rejected by a real
// cluster is rejected here too.
import type { FieldError } from './field-errors.js';
import { isPlainObject } from './objects.js';
import type { KubeObject } from './objects.js';

const EVENT_TYPES = ['Normal', 'Warning'];

/** core/v1 Events: lenient (legacy), but the involved object must live in the Event's namespace. */
export function validateCoreEvent(event: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const involved = isPlainObject(event.involvedObject) ? event.involvedObject : {};
  const involvedNs = involved.namespace;
  if (
    typeof involvedNs === 'string' &&
    involvedNs !== '' &&
    involvedNs !== event.metadata.namespace
  ) {
    errors.push({
      type: 'Invalid',
      field: 'involvedObject.namespace',
      value: involvedNs,
      detail: 'does not match event.namespace',
    });
  }
  errors.push(...checkType(event.type, 'type'));
  return errors;
}

/** events.k8s.io/v1 Events: the reporting fields, action, reason and eventTime are required. */
export function validateEventsV1(event: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of [
    'eventTime',
    'reportingController',
    'reportingInstance',
    'action',
    'reason',
  ]) {
    const value = event[field];
    if (value === undefined || value === null || value === '')
      errors.push({ type: 'Required', field });
  }
  for (const field of ['action', 'reason']) {
    const value = event[field];
    if (typeof value === 'string' && value.length > 128) {
      errors.push({ type: 'Invalid', field, value, detail: 'can have at most 128 characters' });
    }
  }
  errors.push(...checkType(event.type, 'type'));
  return errors;
}

function checkType(value: unknown, field: string): FieldError[] {
  if (value === undefined || value === '' || EVENT_TYPES.includes(value as string)) return [];
  return [{ type: 'NotSupported', field, value, supported: EVENT_TYPES }];
}
