import { AuthenticationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { observeKubeRequest } from '../metrics/kube.js';
import { mapApiError } from './api-errors.js';
import { RateLimiter } from './rate-limiter.js';

export interface TokenReviewAnswer {
  authenticated: boolean;
  username?: string;
  /** The audiences the API server says the token is valid for (`status.audiences`). */
  audiences: string[];
}

/** TokenReviews a second, and at most at once, when nothing else limits them. */
export const TOKEN_REVIEW_BUDGET = { qps: 5, burst: 10 };

/**
 * TokenReview calls on a budget of their own, apart from the gateway's limiter: reviews are driven
 * by whoever reaches the events endpoint, so a flood of unknown tokens must neither wait in the
 * queue the worker's requests wait in nor build a queue of its own. Over the budget a review is
 * not sent at all (`review` answers `undefined`), and it is sent once, without retries.
 */
export class TokenReviewer {
  private readonly authn: AuthenticationV1Api;
  private readonly limiter: RateLimiter;

  constructor(
    kubeConfig: KubeConfig,
    budget: { qps: number; burst: number } = TOKEN_REVIEW_BUDGET,
  ) {
    this.authn = kubeConfig.makeApiClient(AuthenticationV1Api);
    this.limiter = new RateLimiter(budget.qps, budget.burst);
  }

  /** The API server's verdict on `token` for `audience`, or undefined when over the budget. */
  async review(token: string, audience: string): Promise<TokenReviewAnswer | undefined> {
    if (!this.limiter.tryTake()) return undefined;
    const what = 'review a caller token';
    try {
      const review = await observeKubeRequest('create', () =>
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
        ...(review.status?.user?.username ? { username: review.status.user.username } : {}),
        audiences: review.status?.audiences ?? [],
      };
    } catch (error) {
      throw mapApiError(error, what);
    }
  }
}
