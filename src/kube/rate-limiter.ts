/**
 * Client-side token bucket in front of the API server (KUBE_QPS tokens a second, KUBE_BURST at
 * most), like client-go's default limiter: the API server is shared with the whole cluster.
 */
export class RateLimiter {
  private tokens: number;
  private last = Date.now();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** Resolves when the caller may send one request. Callers are served in arrival order. */
  take(): Promise<void> {
    const turn = this.queue.then(() => this.waitForToken());
    this.queue = turn;
    return turn;
  }

  private async waitForToken(): Promise<void> {
    this.refill();
    if (this.tokens < 1) {
      const waitMs = ((1 - this.tokens) / this.qps) * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(waitMs)));
      this.refill();
    }
    this.tokens -= 1;
  }

  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }

  /**
   * Takes a token only if one is there now, never waiting: for budgets where a caller over the
   * limit is better refused than queued (a flood must not build a queue of its own).
   */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
