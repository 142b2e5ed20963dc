import { currentRequestFlow } from './request-flow.js';

/**
 * Client-side token bucket in front of the API server (KUBE_QPS tokens a second, KUBE_BURST at
 * most), like client-go's default limiter: the API server is shared with the whole cluster.
 *
 * Waiting requests queue by flow (`request-flow.ts`: a directive's namespace) and the flows take
 * tokens in turn, as API Priority and Fairness serves its queues: a flow alone gets the whole
 * rate, and one namespace's many jobs cannot make another's run wait behind all of their requests.
 */
export class RateLimiter {
  private tokens: number;
  private last = Date.now();
  /** Each waiting flow's requests, in arrival order; the map's order is whose turn comes next. */
  private readonly waiting = new Map<string, Array<() => void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /**
   * Resolves when the caller may send one request. Requests of one flow are served in arrival
   * order; flows with requests waiting are served one request each, round-robin.
   */
  take(flow: string = currentRequestFlow()): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(flow);
      if (queue === undefined) this.waiting.set(flow, [resolve]);
      else queue.push(resolve);
      this.serve();
    });
  }

  /** Flows with requests waiting now: a flow is forgotten as soon as its last one is served. */
  get waitingFlows(): number {
    return this.waiting.size;
  }

  private serve(): void {
    // A timer is set for the next token: until it fires there is none to give.
    if (this.timer !== undefined) return;
    this.refill();
    while (this.tokens >= 1) {
      const next = this.waiting.entries().next();
      if (next.done === true) return;
      const [flow, queue] = next.value;
      this.tokens -= 1;
      queue.shift()?.();
      // Served, the flow goes to the back of the turn (or away, when nothing of it waits).
      this.waiting.delete(flow);
      if (queue.length > 0) this.waiting.set(flow, queue);
    }
    if (this.waiting.size === 0) return;
    const waitMs = ((1 - this.tokens) / this.qps) * 1000;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.serve();
    }, Math.ceil(waitMs));
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
