import { AuthenticationV1Api, OpenidApi, type KubeConfig } from '@kubernetes/client-node';
import { observeKubeRequest } from '../metrics/kube.js';
import { mapApiError } from './api-errors.js';
import { RateLimiter } from './rate-limiter.js';

export interface TokenReviewAnswer {
  authenticated: boolean;
  username?: string;
  /** The audiences the API server says the token is valid for (`status.audiences`). */
  audiences: string[];
}

/**
 * TokenReviews a second, and at most at once, of tokens whose claims name an allowed service
 * account (the `allowed` lane): the budget that real callers' new tokens are reviewed on.
 */
export const TOKEN_REVIEW_BUDGET = { qps: 5, burst: 10 };

/**
 * The same for tokens whose claims name any other service account (the `other` lane): reviewed,
 * so that a valid one is told 403 rather than 401, on a budget of their own that they cannot
 * spend for the allowed ones.
 */
export const OTHER_ACCOUNTS_REVIEW_BUDGET = { qps: 1, burst: 2 };

/**
 * The same for tokens whose last review said valid and has expired (the `renewal` lane): a token
 * only a real caller holds. A flood of forged tokens naming an allowed account spends the
 * `allowed` lane and never this one, so a known-good caller is renewed however long it lasts.
 */
export const RENEWAL_REVIEW_BUDGET = { qps: 5, burst: 10 };

/** Which budget a review is taken from (`TokenVerdicts` decides it from the token's claims). */
export type ReviewLane = 'allowed' | 'other' | 'renewal';

type Budget = { qps: number; burst: number };

/**
 * TokenReview calls on budgets of their own, apart from the gateway's limiter: reviews are driven
 * by whoever reaches the events endpoint, so a flood of unknown tokens must neither wait in the
 * queue the worker's requests wait in nor build a queue of its own. Over its lane's budget a
 * review is not sent at all (`review` answers `undefined`), and it is sent once, without retries.
 */
export class TokenReviewer {
  private readonly authn: AuthenticationV1Api;
  private readonly openid: OpenidApi;
  private readonly limiters: Record<ReviewLane, RateLimiter>;

  constructor(
    kubeConfig: KubeConfig,
    budgets: Record<ReviewLane, Budget> = {
      allowed: TOKEN_REVIEW_BUDGET,
      other: OTHER_ACCOUNTS_REVIEW_BUDGET,
      renewal: RENEWAL_REVIEW_BUDGET,
    },
  ) {
    this.authn = kubeConfig.makeApiClient(AuthenticationV1Api);
    this.openid = kubeConfig.makeApiClient(OpenidApi);
    this.limiters = {
      allowed: new RateLimiter(budgets.allowed.qps, budgets.allowed.burst),
      other: new RateLimiter(budgets.other.qps, budgets.other.burst),
      renewal: new RateLimiter(budgets.renewal.qps, budgets.renewal.burst),
    };
  }

  /** The API server's verdict on `token` for `audience`, or undefined when over the lane's budget. */
  async review(
    token: string,
    audience: string,
    lane: ReviewLane = 'allowed',
  ): Promise<TokenReviewAnswer | undefined> {
    if (!this.limiters[lane].tryTake()) return undefined;
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

  /**
   * The service-account issuer's public keys (`GET /openid/v1/jwks`, readable with the
   * `system:service-account-issuer-discovery` ClusterRole), as the JWKS document.
   */
  async issuerKeys(): Promise<unknown> {
    try {
      // Typed a string, but a JSON media type (application/jwk-set+json) arrives parsed.
      const body: unknown = await observeKubeRequest('get', () =>
        this.openid.getServiceAccountIssuerOpenIDKeyset(),
      );
      return typeof body === 'string' ? JSON.parse(body) : body;
    } catch (error) {
      throw mapApiError(error, 'read the service-account issuer keys');
    }
  }
}
