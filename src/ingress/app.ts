import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { lazyChildLogger, type Logger } from '../logger.js';
import { RecentRuns } from '../queue/recent-runs.js';
import { createAuthenticator, settleHook, type Authenticator } from './auth.js';
import { DASHBOARD_PATH } from './dashboard-path.js';
import { limitBodyTime } from './body-timeout.js';
import { lazySchemaCompilers } from './lazy-schemas.js';
import type { AppDeps } from './deps.js';
import { judgeOf } from '../gates/judge.js';
import { FollowUps } from '../status/follow-ups.js';
import { groupCommit } from '../queue/durable.js';
import { clientErrorHandler, sendProblem } from './http-errors.js';
import { registerOpenApi } from './openapi.js';
import { refuseUnknownQuery } from './query-params.js';
import { requestLogging } from './refusal-log.js';
import { directiveControlRoutes } from './routes/directive-controls.js';
import { directiveRoutes } from './routes/directives.js';
import { eventsRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { IssuerKeys } from './issuer-keys.js';
import { TokenVerdicts } from './token-verdicts.js';
import { leaveBodiesUnread, noRoute } from './unread-bodies.js';

/** A sender's request id is kept only when it is short and plain; anything else gets a new one. */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(given) ? given : randomUUID();
}

function authenticator(deps: AppDeps): Authenticator {
  const { auth } = deps.config;
  let verdicts: TokenVerdicts | undefined;
  if (auth.tokenReviewAudience !== undefined) {
    const reviewer = deps.tokenReviewer;
    if (reviewer === undefined)
      throw new Error('WEBHOOK_TOKENREVIEW_AUDIENCE needs a token reviewer');
    const keys = new IssuerKeys(() => reviewer.issuerKeys(), deps.log);
    verdicts = new TokenVerdicts(
      (token, audience, lane) => reviewer.review(token, audience, lane),
      auth.tokenReviewAudience,
      { allowedAccounts: auth.allowedServiceAccounts, signatures: (token) => keys.check(token) },
    );
  }
  return createAuthenticator(auth, {
    redis: deps.redis,
    prefix: deps.config.queuePrefix,
    rateLimitPerMinute: deps.config.rateLimitPerMinute,
    ...(verdicts ? { verdicts } : {}),
  });
}

/** How long closing waits for open connections before it cuts them. */
const CLOSE_GRACE_MS = 5000;

/** Probes, scrapes and the dashboard's static files: every few seconds, not worth a line each. */
const ROUTINE = [/^\/healthz$/, /^\/readyz$/, /^\/metrics$/, /^\/admin\/queues\/static\//];

function quietRoutine(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.logLevel && ROUTINE.some((path) => path.test(route.url ?? ''))) {
      route.logLevel = 'warn';
    }
  });
}

/** Builds the HTTP app; `main` listens, tests use `inject` or listen on port 0. */
export async function buildApp(given: AppDeps): Promise<FastifyInstance> {
  const withCaches: AppDeps = {
    ...given,
    followUps: given.followUps ?? new FollowUps(),
    recentRuns: given.recentRuns ?? new RecentRuns(),
    gates: given.gates ?? judgeOf(given.config.gates),
  };
  const deps: AppDeps = { ...withCaches, runs: given.runs ?? groupCommit(withCaches) };
  // A burst of new events is answered first; its PENDING writes follow once it is over.
  const runs = deps.runs;
  if (runs !== undefined) deps.followUps?.holdWhile(() => runs.busy);
  const logger: FastifyBaseLogger = deps.log;
  const bodyTimeoutMs = deps.config.bodyTimeoutSeconds * 1000;
  const lines = requestLogging(logger);
  const app = Fastify({
    loggerInstance: logger,
    // One line per request, when it is answered; refusals in aggregate (refusal-log.ts).
    logController: lines.logController,
    bodyLimit: deps.config.bodyLimitBytes,
    // Node's backstops behind the body timer: a whole request, and a silent socket.
    requestTimeout: bodyTimeoutMs + 5000,
    connectionTimeout: bodyTimeoutMs + 10_000,
    clientErrorHandler,
    // A URL the router cannot decode (`%A`) gets the same {error, message} body as the rest.
    frameworkErrors: (error, request, reply) => {
      void sendProblem(error, request, reply);
    },
    // Object names run to 253 characters; a longer one is the schema's 400, not the router's 414.
    routerOptions: { maxParamLength: 300 },
    requestIdHeader: false,
    genReqId: requestId,
    childLoggerFactory: (logger, bindings, options) =>
      lazyChildLogger(logger as Logger, bindings, options),
    schemaController: { compilersFactory: lazySchemaCompilers },
  });
  const auth = authenticator(deps);
  limitBodyTime(app, deps.config.bodyTimeoutSeconds);
  // The id a sender can quote to find its request in the logs.
  // Hooks every request meets are in callback form: no promise per request for synchronous work.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Only /v1/events reads a body (its parsers are its own); unknown paths are 404 unread.
  leaveBodiesUnread(app);
  app.decorate('refusals', lines.refusals);
  app.addHook('onResponse', settleHook(auth));
  // The PENDING writes that follow answers end (or fail) before the app is closed.
  app.addHook('onClose', async () => deps.followUps?.close(deps.log));
  // Closing waits for every connection, and one that never sends a request (a browser's
  // preconnect) would hold it until Node's headersTimeout, 60 s: past the grace, what is open is cut.
  app.addHook('preClose', (done) => {
    setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS).unref();
    done();
  });
  app.setErrorHandler((error, request, reply) => sendProblem(error, request, reply));
  app.setNotFoundHandler((request, reply) => sendProblem(noRoute(request), request, reply));
  quietRoutine(app);
  // bull-board's UI and API read parameters of their own; its guard decides what it may do.
  refuseUnknownQuery(app, (url) => url.startsWith(DASHBOARD_PATH));
  await registerOpenApi(app);
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  await typed.register(healthRoutes, { deps });
  await typed.register(eventsRoutes, { deps, auth });
  await typed.register(directiveRoutes, { deps, auth });
  await typed.register(directiveControlRoutes, { deps, auth });
  await typed.register(metricsRoutes, { deps });
  // Not mounted at all without credentials: /admin/queues is then a plain 404.
  // bull-board is loaded only when the dashboard is on: a plain api starts without it.
  if (deps.config.dashboard) {
    const { dashboardPlugin } = await import('./dashboard.js');
    await app.register(dashboardPlugin(deps, deps.config.dashboard));
  }
  return app;
}
