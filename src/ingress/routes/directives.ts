import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorCode, type Job } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import { directiveKey } from '../../directive/types.js';
import { isPaused } from '../../directive/paused.js';
import { abortKey } from '../../queue/names.js';
import { guard, senderOf } from '../auth.js';
import { directiveInScope } from '../../ingest/bounds.js';
import { HttpProblem } from '../http-errors.js';
import { inRedis } from '../../queue/durable.js';
import { currentRun, inProgress, jobsOf, runName } from '../../queue/run-jobs.js';
import { DirectiveParams, DirectiveView, errorResponses, RetriedBody } from '../schemas.js';
import type { RouteOptions } from './events.js';

/**
 * Retries one failed job; false when another retry took it first (BullMQ finds it no longer
 * failed): a race lost, not Redis trouble, so the sender is told nothing failed (409).
 */
async function retryJob(job: Job | undefined, log: FastifyBaseLogger): Promise<boolean> {
  try {
    await job?.retry('failed', { resetAttemptsMade: true });
    return job !== undefined;
  } catch (error) {
    if ((error as { code?: unknown }).code !== ErrorCode.JobNotInState) {
      // Anything else is Redis's trouble, answered as any other (503).
      return inRedis(async () => {
        throw error;
      });
    }
    log.debug({ jobId: job?.id }, 'job retried meanwhile by another request');
    return false;
  }
}

/** Read-only view and retry of a directive's latest run (DESIGN §3). */
export const directiveRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps, auth },
) => {
  app.get(
    '/v1/directives/:namespace/:name',
    {
      schema: {
        summary: "A directive's latest run: status and selector jobs",
        params: DirectiveParams,
        response: { 200: DirectiveView, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
      ...guard(auth),
    },
    async (request) => {
      const directive = await directiveInScope(deps, request.params, senderOf(request));
      const run = await currentRun(deps, directive);
      const issuedAt = run.issuedAt ?? directive.status?.issuedAt ?? undefined;
      const jobs = await jobsOf(deps, run);
      return {
        directive: directiveKey(directive.metadata),
        generation: directive.metadata.generation,
        ...(issuedAt !== undefined ? { issuedAt } : {}),
        paused: isPaused(directive),
        inProgress: inProgress(jobs),
        status: directive.status ?? {},
        jobs,
      };
    },
  );

  app.post(
    '/v1/directives/:namespace/:name/retry',
    {
      schema: {
        summary: 'Retry the failed job of the latest run',
        params: DirectiveParams,
        response: { 202: RetriedBody, ...errorResponses(400, 401, 403, 404, 409, 429, 503) },
      },
      ...guard(auth),
    },
    async (request, reply) => {
      const directive = await directiveInScope(deps, request.params, senderOf(request));
      const run = await currentRun(deps, directive);
      const failed = (await jobsOf(deps, run)).filter((job) => job.state === 'failed');
      if (failed.length === 0) {
        throw new HttpProblem(409, 'conflict', `Nothing has failed in ${runName(directive, run)}.`);
      }
      // An aborted run resumes like any failed one: the abort request is withdrawn first.
      const abort = abortKey(deps.config.queuePrefix, run.uid, run.generation, run.runKey);
      await inRedis(() => deps.redis.del(abort));
      const retried: string[] = [];
      for (const view of failed) {
        const job = await inRedis(async () => (await deps.queues.queue()).getJob(view.jobId));
        if (await retryJob(job, request.log)) retried.push(view.jobId);
      }
      if (retried.length === 0) {
        throw new HttpProblem(409, 'conflict', `Nothing has failed in ${runName(directive, run)}.`);
      }
      return reply.code(202).send({ retried });
    },
  );
};
