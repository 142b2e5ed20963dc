import { AuthenticationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { KubeRequests } from './requests.js';

export interface ReviewedToken {
  authenticated: boolean;
  username?: string;
}

/** Who a caller's service-account token belongs to, as the API server says. */
export interface TokenReviews {
  reviewToken(token: string, audience: string): Promise<ReviewedToken>;
}

export class TokenReviewClient implements TokenReviews {
  private readonly authn: AuthenticationV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly requests: KubeRequests,
  ) {
    this.authn = kubeConfig.makeApiClient(AuthenticationV1Api);
  }

  /** Validates a service-account token with the TokenReview API. */
  async reviewToken(token: string, audience: string): Promise<ReviewedToken> {
    const review = await this.requests.call({ verb: 'create', what: 'review a caller token' }, () =>
      this.authn.createTokenReview({
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token, audiences: [audience] },
        },
      }),
    );
    return {
      authenticated: review.status?.authenticated === true,
      username: review.status?.user?.username,
    };
  }
}
