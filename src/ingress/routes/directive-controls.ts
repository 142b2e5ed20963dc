import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { directiveKey, type Directive } from '../../directive/types.js';
import { isPaused } from '../../directive/paused.js';
import { ABORT_TTL_SECONDS, abortKey } from '../../queue/names.js';
import { runTag } from '../../queue/run-identity.js';
import { guard, senderOf } from '../auth.js';
import { directiveInScope } from '../../ingest/bounds.js';
import type { AppDeps } from '../deps.js';
import { HttpProblem } from '../http-errors.js';
import { inRedis } from '../../queue/durable.js';
import { currentRun, inProgress, jobsOf, runName } from '../../queue/run-jobs.js';
import {
  AbortedBody,
  DirectiveParams,
  errorResponses,
  PausedBody,
  type DirectiveParams as Params,
} from '../schemas.js';
import type { RouteOptions } from './events.js';

function pausedView(directive: Directive): Static<typeof PausedBody> {
  return {
    directive: directiveKey(directive.metadata),
    generation: directive.metadata.generation,
    paused: isPaused(directive),
    ...(directive.status?.state !== undefined ? { state: directive.status.state } : {}),
  };
}

/**
 * Ends the latest run: the abort key tells the worker (before each batch and at each re-check);
 * the run's delayed job, if any, is promoted so the worker sees it now rather than at its next
 * re-check. 409 when the run is not in progress (`inProgress`): finished, or stopped at a failed
 * job, an aborted one included, until that job is retried.
 */
async function abortRun(deps: AppDeps, directive: Directive): Promise<Static<typeof AbortedBody>> {
  const run = await currentRun(deps, directive);
  const jobs = await jobsOf(deps, run);
  if (!inProgress(jobs)) {
    throw new HttpProblem(409, 'conflict', `${runName(directive, run)} is not in progress.`);
  }
  const key = abortKey(deps.config.queuePrefix, run.uid, run.generation, run.runKey);
  await inRedis(() => deps.redis.set(key, new Date().toISOString(), 'EX', ABORT_TTL_SECONDS));
  for (const view of jobs.filter((job) => job.state === 'delayed')) {
    const job = await inRedis(async () => (await deps.queues.queue()).getJob(view.jobId));
    // A job that left the delayed set meanwhile is being run: the worker reads the key there.
    await job?.promote().catch(() => undefined);
  }
  return {
    directive: directiveKey(directive.metadata),
    generation: run.generation,
    aborted: runTag(run),
  };
}

/**
 * Sets or removes the pause annotation of a directive the route has read (`directiveInScope`):
 * a merge patch of a missing object would be a 404 too, but a less plain one.
 */
async function pauseDirective(
  deps: AppDeps,
  params: Params,
  paused: boolean,
): Promise<Static<typeof PausedBody>> {
  return pausedView(await deps.kube.setPaused(params, paused));
}

/** `POST …/pause`, `…/resume` and `…/abort` on a directive (DESIGN §3). */
export const directiveControlRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps, auth },
) => {
  const errors = errorResponses(400, 401, 403, 404, 409, 429, 503);
  const pauseSchema = { params: DirectiveParams, response: { 200: PausedBody, ...errors } };
  const pauses = [
    ['pause', 'Pause: no further pod is bounced', true],
    ['resume', 'Resume a paused directive', false],
  ] as const;
  for (const [verb, summary, paused] of pauses) {
    app.post(
      `/v1/directives/:namespace/:name/${verb}`,
      { schema: { summary, ...pauseSchema }, ...guard(auth) },
      async (request) => {
        await directiveInScope(deps, request.params, senderOf(request));
        return pauseDirective(deps, request.params, paused);
      },
    );
  }
  const abortSchema = {
    summary: 'Abort the latest run: no further pod is bounced, it ends FAILED',
    params: DirectiveParams,
    response: { 202: AbortedBody, ...errors },
  };
  app.post(
    '/v1/directives/:namespace/:name/abort',
    { schema: abortSchema, ...guard(auth) },
    async (request, reply) => {
      const directive = await directiveInScope(deps, request.params, senderOf(request));
      return reply.code(202).send(await abortRun(deps, directive));
    },
  );
};
