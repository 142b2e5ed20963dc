import {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { HttpProblem } from './http-errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where refusals of requests without valid credentials are told (`requestLogging`). */
    refusals?: RefusalLog;
  }
}

const WINDOW_MS = 1000;

/**
 * Refusals of requests that brought no valid credential (a 401, the TokenReview budget's 503, a
 * path no route serves…) are told at most once a second in aggregate, at warn, without a stack
 * (DESIGN §2): what a stranger sends must not cost a log line each. The first refusal after a
 * quiet second is told at once, with its request; the ones that follow within the second are
 * counted, and told in one line when it ends.
 */
export class RefusalLog {
  private windowEnds = 0;
  private held = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private readonly noted = new WeakSet<FastifyRequest>();

  constructor(private readonly log: FastifyBaseLogger) {}

  note(request: FastifyRequest, problem: HttpProblem): void {
    this.noted.add(request);
    const now = Date.now();
    if (now >= this.windowEnds && this.timer === undefined) {
      this.windowEnds = now + WINDOW_MS;
      request.log.warn(
        { req: request, status: problem.statusCode, code: problem.code, reason: problem.message },
        'request refused without valid credentials',
      );
      return;
    }
    this.held.set(problem.statusCode, (this.held.get(problem.statusCode) ?? 0) + 1);
    this.timer ??= setTimeout(() => this.flush(), Math.max(0, this.windowEnds - now)).unref();
  }

  /** Whether this request's answer was told here (it then gets no line of its own). */
  told(request: FastifyRequest): boolean {
    return this.noted.has(request);
  }

  private flush(): void {
    this.timer = undefined;
    const statuses = Object.fromEntries(this.held);
    const refused = [...this.held.values()].reduce((sum, count) => sum + count, 0);
    this.held = new Map();
    // The line just written opens a window of its own: still one line a second under a flood.
    this.windowEnds = Date.now() + WINDOW_MS;
    this.log.warn({ refused, statuses }, 'more requests refused without valid credentials');
  }
}

/**
 * fastify's request lines, kept to one per request, written when it is answered (with what was
 * asked and what was answered), except for the refusals the `RefusalLog` tells in aggregate: a
 * line written when a request arrives would be one a stranger can have written at will. A route's
 * `logLevel` still applies (probes at `warn` write nothing); fastify's other lines are its own.
 */
class RequestLines extends LogController {
  constructor(private readonly refusals: RefusalLog) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (this.refusals.told(request)) return;
    if (error) {
      super.requestCompleted(error, request, reply, metadata);
      return;
    }
    reply.log.info(
      { req: request, res: reply, responseTime: reply.elapsedTime },
      'request completed',
    );
  }
}

/**
 * How an app logs its requests: the `logController` to build it with, and the `RefusalLog` to
 * decorate it with (`app.decorate('refusals', refusals)`), where `sendProblem` tells refusals.
 */
export function requestLogging(log: FastifyBaseLogger): {
  logController: LogController;
  refusals: RefusalLog;
} {
  const refusals = new RefusalLog(log);
  return { logController: new RequestLines(refusals), refusals };
}
