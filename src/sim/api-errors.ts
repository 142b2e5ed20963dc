// Errors answered as metav1.Status, with the reasons and messages a real API server uses.

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): StatusBody {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** "pods" or "podbouncedirectives.internal.gloo.solo.io", as Kubernetes names a resource in messages. */
export function qualifiedResource(plural: string, group: string): string {
  return group ? `${plural}.${group}` : plural;
}

export function notFound(resource: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${resource} "${name}" not found`, {
    name,
    kind: resource.split('.')[0],
  });
}

export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
}

export function alreadyExists(resource: string, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${resource} "${name}" already exists`, { name });
}

export function conflict(resource: string, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${resource} "${name}": ${why}`,
    {
      name,
    },
  );
}

export const STALE_OBJECT =
  'the object has been modified; please apply your changes to the latest version and try again';

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function methodNotAllowed(method: string): ApiError {
  return new ApiError(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource (${method})`,
  );
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/merge-patch+json, application/json-patch+json, application/apply-patch+yaml (got "${contentType}")`,
  );
}

export function unprocessable(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

export function internalError(message: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`);
}

export function injectedFailure(
  status: 500 | 503 | 429 | 409,
  retryAfterSeconds: number,
): ApiError {
  if (status === 409) return conflict('object', 'injected', STALE_OBJECT);
  if (status === 429) {
    return new ApiError(
      429,
      'TooManyRequests',
      'the server has received too many requests and has asked us to try again later',
      {
        retryAfterSeconds,
      },
    );
  }
  if (status === 503) {
    return new ApiError(
      503,
      'ServiceUnavailable',
      'the server is currently unable to handle the request',
    );
  }
  return internalError('injected fault');
}

export function expired(requested: string, oldest: string): ApiError {
  return new ApiError(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
}
