/**
 * The authenticator's contract, and the fastify hooks that run it on a guarded route, in
 * fastify's callback form: a request decided in process costs no promise.
 */

import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The hooks a guarded route uses, in the order a request meets them. Each answers synchronously
 * (throwing its refusal) when it needs nothing outside the process, and returns a promise only
 * when it waits on TokenReview or Redis: a refused request costs no promise, and an admitted one
 * the one Redis call of its credential's rate limit.
 */
export interface Authenticator {
  /**
   * onRequest: decides whatever needs no body, and refuses a request with no credential. A
   * signature header is taken only where `signatures` is set (the events endpoint). A request
   * admitted here is counted against its credential's rate limit (429 over it).
   */
  beforeBody(request: FastifyRequest, signatures: boolean): Promise<void> | undefined;
  /** Called by the body parser with the exact bytes, before they are parsed: throws a 401. */
  verifyBody(request: FastifyRequest, body: Buffer): void;
  /**
   * preHandler: admits what was admitted or verified, counting a verified signature against its
   * scheme's rate limit (429 over it); answers a replayed webhook-id.
   */
  afterBody(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply | undefined> | undefined;
  /** onResponse: an answer that changed nothing releases the webhook-id for the sender's retry. */
  settle(request: FastifyRequest, statusCode: number): Promise<void> | undefined;
}

type Done = (error?: Error) => void;

interface GuardHooks {
  onRequest: (request: FastifyRequest, reply: FastifyReply, done: Done) => void;
  preHandler: (request: FastifyRequest, reply: FastifyReply, done: Done) => void;
}

/** Runs a hook that answers synchronously or with a promise, fastify's callback way. */
function callback(run: () => Promise<unknown> | undefined, done: Done): void {
  let pending: Promise<unknown> | undefined;
  try {
    pending = run();
  } catch (error) {
    done(error as Error);
    return;
  }
  if (pending === undefined) done();
  else pending.then(() => done(), done);
}

/**
 * A guarded route's hooks, in fastify's callback form: a request decided in process costs no
 * promise. A replayed webhook-id is answered by the preHandler itself, and the route's handler
 * then does not run.
 */
function hooks(auth: Authenticator, signatures: boolean): GuardHooks {
  return {
    onRequest: (request, _reply, done) =>
      callback(() => auth.beforeBody(request, signatures), done),
    preHandler: (request, reply, done) => {
      let pending: Promise<FastifyReply | undefined> | undefined;
      try {
        pending = auth.afterBody(request, reply);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (pending === undefined) done();
      else pending.then((answered) => (answered === undefined ? done() : undefined), done);
    },
  };
}

/** The hooks of a route that takes tokens only: a signature alone is a 401 there. */
export function guard(auth: Authenticator): GuardHooks {
  return hooks(auth, false);
}

/**
 * The events endpoint's hooks: tokens, and the HMAC and Standard Webhooks signatures made for
 * it (DESIGN §2). No other route takes a signature.
 */
export function signedGuard(auth: Authenticator): GuardHooks {
  return hooks(auth, true);
}

/** The onResponse hook that settles a request's webhook-id, in fastify's callback form. */
export function settleHook(
  auth: Authenticator,
): (request: FastifyRequest, reply: FastifyReply, done: Done) => void {
  return (request, reply, done) => callback(() => auth.settle(request, reply.statusCode), done);
}
