// TokenReview: the API server vouching for a bearer token (e.g. a projected service-account token).
import { badRequest } from './api-errors.js';
import { isPlainObject } from './objects.js';
import type { ApiRequest, Reply } from './requests.js';
import type { TokenUser } from './types.js';

// What a token is valid for when it was registered without audiences and the review names none.
const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

export class TokenRegistry {
  private readonly tokens = new Map<string, TokenUser>();

  register(token: string, user: TokenUser): void {
    this.tokens.set(token, structuredClone(user));
  }

  handler(): (req: ApiRequest) => Reply {
    return (req) => {
      const body = isPlainObject(req.body) ? req.body : undefined;
      const spec = body && isPlainObject(body.spec) ? body.spec : undefined;
      if (!spec || typeof spec.token !== 'string')
        throw badRequest('TokenReview spec.token is required');
      const requested = Array.isArray(spec.audiences) ? spec.audiences.map(String) : [];
      return {
        status: 201,
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          metadata: { creationTimestamp: null },
          spec,
          status: this.review(spec.token, requested),
        },
      };
    };
  }

  private review(token: string, requested: string[]): Record<string, unknown> {
    const user = this.tokens.get(token);
    if (!user) return { authenticated: false, user: {}, error: 'invalid bearer token' };
    if (user.reviewAudiences) return this.authenticated(user, user.reviewAudiences);
    const granted = user.audiences;
    let audiences: string[];
    if (requested.length === 0) audiences = granted ?? [API_AUDIENCE];
    else audiences = granted ? requested.filter((a) => granted.includes(a)) : requested;
    if (audiences.length === 0) {
      return {
        authenticated: false,
        user: {},
        error: 'token audiences is invalid for the target audiences',
      };
    }
    return this.authenticated(user, audiences);
  }

  private authenticated(user: TokenUser, audiences: string[]): Record<string, unknown> {
    return {
      authenticated: true,
      user: {
        username: user.username,
        ...(user.uid ? { uid: user.uid } : {}),
        groups: user.groups ?? ['system:authenticated'],
      },
      audiences,
    };
  }
}
