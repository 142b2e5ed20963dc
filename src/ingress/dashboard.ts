import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { selectorJobLabel } from '../queue/names.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import { safeEqual } from './auth.js';
import { uniformDashboardErrors } from './dashboard-errors.js';
import { DASHBOARD_PATH } from './dashboard-path.js';
import { HttpProblem } from './http-errors.js';
import { bullBoardUiPath, loadEditedUi, serveEditedUi } from './dashboard-ui.js';
import type { AppDeps } from './deps.js';

export { DASHBOARD_PATH };

export interface DashboardCredentials {
  readonly user: string;
  readonly password: string;
}

/** The `user:password` pair of a Basic Authorization header, or undefined when there is none. */
function basicCredentials(header: string | undefined): [string, string] | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(header ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/**
 * Basic auth for every request the dashboard serves, static assets included. Both parts are
 * compared in constant time, and both always are, so the answer time tells nothing.
 */
function basicAuthGuard(credentials: DashboardCredentials) {
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply | undefined> => {
    const given = basicCredentials(request.headers.authorization);
    const userOk = safeEqual(given?.[0] ?? '', credentials.user);
    const passwordOk = safeEqual(given?.[1] ?? '', credentials.password);
    if (given !== undefined && userOk && passwordOk) return undefined;
    return reply
      .code(401)
      .header('www-authenticate', 'Basic realm="pod-bouncer dashboard", charset="UTF-8"')
      .type('application/json')
      .send({
        error: 'unauthorized',
        message:
          given === undefined
            ? 'The dashboard needs credentials.'
            : 'The credentials are not valid.',
      });
  };
}

/**
 * Writes the dashboard may make: retrying failed jobs, promoting a delayed job (an early re-check)
 * and pausing or resuming the queue. Adding, editing, cleaning or removing jobs is refused: a
 * job's data names the pods it bounces, so editing it would bounce arbitrary pods, and removing
 * one would leave its directive without an ending. Retrying a completed job is refused too (it
 * would bounce its pods again): bull-board retries completed jobs on the same route whatever
 * `allowCompletedRetries` says (that option only hides the button), so the job's state decides.
 *
 * Keyed by method and the route that matched (bull-board's pattern), never by the raw URL: what
 * runs is what the router chose, whatever `#`, `?`, `%2F` or `//` the URL carries. The UI shows
 * only these controls (dashboard-ui-edits.ts): a change here is a change there.
 */
type Params = Record<string, string>;
/** True: allowed; false: never allowed (403); a problem: allowed, but not for this job now. */
type WriteCheck = (
  params: Params,
  jobState: (id: string) => Promise<string>,
) => Promise<boolean | HttpProblem>;
const always: WriteCheck = async () => true;

/** BullMQ refuses to promote a job that is not delayed, and bull-board would answer that 500. */
const delayedOnly: WriteCheck = async (params, jobState) => {
  const id = params.jobId ?? '';
  const state = await jobState(id);
  if (state === 'delayed') return true;
  return state === 'unknown'
    ? new HttpProblem(404, 'job_not_found', `There is no job ${id}.`)
    : new HttpProblem(
        409,
        'job_not_delayed',
        `Only a delayed job can be promoted; job ${id} is ${state}.`,
      );
};
const ALLOWED_WRITES: ReadonlyMap<string, WriteCheck> = new Map<string, WriteCheck>([
  [
    'PUT /api/queues/:queueName/:jobId/retry',
    async (params, jobState) => (await jobState(params.jobId ?? '')) === 'failed',
  ],
  ['PUT /api/queues/:queueName/:jobId/promote', delayedOnly],
  [
    'PUT /api/queues/:queueName/retry/:queueStatus',
    async (params) => params.queueStatus === 'failed',
  ],
  ['PUT /api/queues/:queueName/promote', always],
  ['PUT /api/queues/:queueName/pause', always],
  ['PUT /api/queues/:queueName/resume', always],
  ['PUT /api/queues/pause', always],
  ['PUT /api/queues/resume', always],
]);

/**
 * Whether the matched route (its parameters, and the job's state) is a read or an allowed write;
 * a problem when the write is allowed but not for that job as it is now.
 */
export async function dashboardAllows(
  request: FastifyRequest,
  jobState: (id: string) => Promise<string>,
): Promise<boolean | HttpProblem> {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  const route = request.routeOptions.url ?? '';
  if (!route.startsWith(`${DASHBOARD_PATH}/`)) return false;
  const allowed = ALLOWED_WRITES.get(`${request.method} ${route.slice(DASHBOARD_PATH.length)}`);
  return allowed !== undefined && (await allowed((request.params ?? {}) as Params, jobState));
}

function actionGuard(jobState: (id: string) => Promise<string>) {
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply | undefined> => {
    const verdict = await dashboardAllows(request, jobState);
    if (verdict === true) return undefined;
    if (verdict instanceof HttpProblem) {
      return reply
        .code(verdict.statusCode)
        .type('application/json')
        .send({ error: verdict.code, message: verdict.message });
    }
    request.log.info(
      { method: request.method, route: request.routeOptions.url },
      'dashboard write refused',
    );
    return reply.code(403).type('application/json').send({
      error: 'forbidden',
      message:
        'The dashboard may retry failed jobs, promote, pause and resume; adding, editing, cleaning or removing jobs, and retrying completed ones, is not allowed.',
    });
  };
}

/** bull-board's UI sends some PUTs with a JSON content type and no body: those read as `{}`. */
function tolerantJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (
      _request: FastifyRequest,
      body: string,
      done: (error: Error | null, value?: unknown) => void,
    ) => {
      try {
        done(null, body === '' ? {} : JSON.parse(body));
      } catch {
        // A 400 that says so, not the 500 of an unexpected SyntaxError.
        done(new HttpProblem(400, 'bad_request', 'The request body is not valid JSON.'));
      }
    },
  );
}

/**
 * The bull-board dashboard over the selector queue at `/admin/queues`, in a plugin of its own so
 * that its guard, body parser and error handler apply to it alone. bull-board has no auth of its
 * own: the onRequest guard runs before any of its routes, static files included. Retrying a failed
 * selector job here is what `POST /v1/directives/:ns/:name/retry` does. Its UI is served with the
 * controls the guard refuses taken off (dashboard-ui-edits.ts).
 */
export function dashboardPlugin(deps: AppDeps, credentials: DashboardCredentials) {
  return async (app: FastifyInstance): Promise<void> => {
    const bounceQueue = await deps.queues.queue();
    const jobState = (id: string): Promise<string> => bounceQueue.getJobState(id);
    app.addHook('onRequest', basicAuthGuard(credentials));
    app.addHook('onRequest', actionGuard(jobState));
    uniformDashboardErrors(app);
    tolerantJsonParser(app);
    const serverAdapter = new FastifyAdapter().setBasePath(DASHBOARD_PATH);
    // bull-board 9.10 has no per-action switch: readOnlyMode would hide Retry and pause too.
    // Retry stays for failed jobs only: retrying a completed selector would bounce its pods again
    // (allowCompletedRetries is read by the adapter, though its typings do not list it).
    const options = {
      allowRetries: true,
      allowCompletedRetries: false,
      displayName: 'bounce',
      description: 'One job per selector of a directive generation, run in spec order.',
    };
    const queue = new BullMQAdapter(bounceQueue, options);
    queue.setFormatter('name', (job: { name?: string; data?: Partial<SelectorJobData> }) =>
      selectorJobLabel(job.name ?? '', job.data),
    );
    const uiBasePath = bullBoardUiPath();
    serveEditedUi(app, await loadEditedUi(uiBasePath, app.log));
    createBullBoard({
      queues: [queue],
      serverAdapter,
      options: { uiBasePath, uiConfig: { boardTitle: 'pod-bouncer', hideDocsLink: true } },
    });
    await app.register(serverAdapter.registerPlugin(), { prefix: DASHBOARD_PATH });
  };
}
