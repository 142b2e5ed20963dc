import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { directiveKey, type Directive } from '../../directive/types.js';
import { latestRun } from '../../queue/runs.js';
import type { AuthHooks } from '../auth.js';
import type { AppDeps } from '../deps.js';
import { HttpProblem } from '../http-errors.js';

const Params = Type.Object({ namespace: Type.String(), name: Type.String() });
type Params = Static<typeof Params>;

interface JobView {
  selectorIndex: number;
  jobId: string;
  state: string;
  attemptsMade: number;
  failedReason: string | null;
}

async function jobsOf(deps: AppDeps, directive: Directive): Promise<JobView[]> {
  const run = await latestRun(deps.redis, deps.config.queuePrefix, directive.metadata.uid);
  const views = await Promise.all(
    (run?.jobIds ?? []).map(async (jobId, selectorIndex): Promise<JobView | undefined> => {
      const job = await deps.queue.getJob(jobId);
      if (job === undefined) return undefined;
      return {
        selectorIndex,
        jobId,
        state: await job.getState(),
        attemptsMade: job.attemptsMade,
        failedReason: job.failedReason ?? null,
      };
    }),
  );
  return views.filter((view): view is JobView => view !== undefined);
}

/** Read-only view and retry of a directive's current generation (DESIGN §3). */
export function directiveRoutes(deps: AppDeps, auth: AuthHooks) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Params: Params }>(
      '/v1/directives/:namespace/:name',
      { schema: { params: Params }, onRequest: auth.beforeBody, preHandler: auth.afterBody },
      async (request) => {
        const directive = await deps.kube.getDirective(request.params);
        return {
          directive: directiveKey(directive.metadata),
          generation: directive.metadata.generation,
          status: directive.status ?? {},
          jobs: await jobsOf(deps, directive),
        };
      },
    );

    app.post<{ Params: Params }>(
      '/v1/directives/:namespace/:name/retry',
      { schema: { params: Params }, onRequest: auth.beforeBody, preHandler: auth.afterBody },
      async (request, reply) => {
        const directive = await deps.kube.getDirective(request.params);
        const failed = (await jobsOf(deps, directive)).filter((job) => job.state === 'failed');
        if (failed.length === 0) {
          throw new HttpProblem(
            409,
            'conflict',
            `Nothing has failed in generation ${directive.metadata.generation} of ${directiveKey(directive.metadata)}.`,
          );
        }
        for (const view of failed) {
          const job = await deps.queue.getJob(view.jobId);
          await job?.retry('failed', { resetAttemptsMade: true });
        }
        return reply.code(202).send({ retried: failed.map((job) => job.jobId) });
      },
    );
  };
}
