// field.ErrorList formatting: the 422 Invalid Status a real API server returns.
import { ApiError } from './api-errors.js';

export interface FieldError {
  type: 'Required' | 'Invalid' | 'NotSupported' | 'Forbidden';
  field: string;
  value?: unknown;
  detail?: string;
  supported?: readonly unknown[];
}

const CAUSE_REASON: Record<FieldError['type'], string> = {
  Required: 'FieldValueRequired',
  Invalid: 'FieldValueInvalid',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
};

/** `spec.x: Invalid value: 0: spec.x in body should ...` */
export function describeFieldError(error: FieldError): string {
  return `${error.field}: ${describeProblem(error)}`;
}

function describeProblem(error: FieldError): string {
  switch (error.type) {
    case 'Required':
      return error.detail ? `Required value: ${error.detail}` : 'Required value';
    case 'NotSupported': {
      const supported = (error.supported ?? []).map(formatValue).join(', ');
      return `Unsupported value: ${formatValue(error.value)}: supported values: ${supported}`;
    }
    case 'Invalid':
      return `Invalid value: ${formatValue(error.value)}${error.detail ? `: ${error.detail}` : ''}`;
    case 'Forbidden':
      return error.detail ? `Forbidden: ${error.detail}` : 'Forbidden';
  }
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(Array.isArray(value) ? 'array' : 'object');
}

/** `PodBounceDirective.internal.gloo.solo.io "x" is invalid: [a, b]` with one cause per error. */
export function invalidError(
  target: { kind: string; group: string; name: string },
  errors: FieldError[],
): ApiError {
  const qualifiedKind = target.group ? `${target.kind}.${target.group}` : target.kind;
  const messages = errors.map(describeFieldError);
  const summary = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${target.name}" is invalid: ${summary}`, {
    name: target.name,
    group: target.group,
    kind: target.kind,
    causes: errors.map((error) => ({
      reason: CAUSE_REASON[error.type],
      message: describeProblem(error),
      field: error.field,
    })),
  });
}
