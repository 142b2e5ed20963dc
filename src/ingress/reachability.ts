import type { FastifyBaseLogger } from 'fastify';

/** A probe that came before the Kubernetes client was loaded: the dependency is `starting`. */
export class KubeLoading extends Error {
  override readonly name = 'KubeLoading';
}

/** What /readyz says of a dependency. */
export type Reach = 'ok' | 'unreachable' | 'starting';

export interface ReachabilityOptions {
  /** How long a verdict is reused before the dependency is asked again (0: only shared in flight). */
  maxAgeMs: number;
  /** A probe that has not answered by then counts as unreachable. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 2000;

function withTimeout<T>(work: Promise<T>, what: string, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer in ${timeoutMs} ms`)),
      timeoutMs,
    ).unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * One dependency's reachability as /readyz reports it. The dependency is asked at most once every
 * `maxAgeMs`, whatever the number of probes: concurrent probes share the question in flight, later
 * ones reuse its verdict until it is older than that. So a flood of unauthenticated probes costs
 * the dependency nothing more than one probe would. The change of verdict is logged (a warning
 * when it goes away, a line when it is back), never each probe that sees it.
 *
 * `starting` (the api has not loaded its Kubernetes client yet) asks nothing and is not kept.
 */
export class Reachability {
  private verdict: Reach | undefined;
  private askedAt = 0;
  private asking: Promise<Reach> | undefined;
  private readonly timeoutMs: number;

  constructor(
    private readonly what: string,
    private readonly ask: () => Promise<unknown>,
    private readonly log: FastifyBaseLogger,
    private readonly options: ReachabilityOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  state(): Promise<Reach> {
    const fresh = Date.now() - this.askedAt < this.options.maxAgeMs;
    if (this.verdict !== undefined && fresh) return Promise.resolve(this.verdict);
    this.asking ??= this.probe().finally(() => {
      this.asking = undefined;
    });
    return this.asking;
  }

  private async probe(): Promise<Reach> {
    let error: unknown;
    try {
      await withTimeout(this.ask(), this.what, this.timeoutMs);
    } catch (caught) {
      // Not asked: serve loads its Kubernetes client once it listens.
      if (caught instanceof KubeLoading) return 'starting';
      error = caught;
    }
    const verdict: Reach = error === undefined ? 'ok' : 'unreachable';
    this.askedAt = Date.now();
    const before = this.verdict;
    this.verdict = verdict;
    // The client's error text goes to the log; the body says only that it did not answer.
    if (verdict === 'unreachable' && before !== 'unreachable') {
      this.log.warn({ err: error }, `${this.what} is not reachable`);
    } else if (verdict === 'ok' && before === 'unreachable') {
      this.log.info(`${this.what} is reachable again`);
    }
    return verdict;
  }
}
