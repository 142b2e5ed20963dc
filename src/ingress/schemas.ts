import { Type, type Static, type TSchema } from 'typebox';

/**
 * The route schemas: they validate requests (fastify's Ajv), type the handlers (the TypeBox type
 * provider) and make `GET /openapi.json`. Answers are open objects (`additionalProperties`) so
 * that serialization never drops a field a schema does not list yet.
 */

/** A namespace: a DNS-1123 label. */
export const NamespaceName = Type.String({
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  maxLength: 63,
  description: 'A namespace (DNS-1123 label).',
});

/** An object name: a DNS-1123 subdomain. */
export const ObjectName = Type.String({
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  maxLength: 253,
  description: 'A directive name (DNS-1123 subdomain).',
});

export const DirectiveParams = Type.Object(
  { namespace: NamespaceName, name: ObjectName },
  { additionalProperties: false },
);
export type DirectiveParams = Static<typeof DirectiveParams>;

/** Any other parameter is refused (`query-params.ts`): `?dryrun=true` must not run for real. */
export const EventsQuery = Type.Object(
  {
    dryRun: Type.Optional(
      Type.Boolean({ description: 'Answer 200 with the plan instead of starting a run.' }),
    ),
  },
  { additionalProperties: false },
);

/** Any JSON object: the events endpoint reads many shapes, told apart by `events/normalize`. */
export const EventBody = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'A cert-issued event: native JSON, a CloudEvent (structured mode), a Kubernetes watch event or object, a core/v1 Event, or an Argo Events envelope (DESIGN §2).',
  },
);

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'A short code, e.g. bad_request.' }),
    message: Type.String({ description: 'A plain sentence naming the problem.' }),
  },
  { additionalProperties: false },
);

const open = { additionalProperties: true };

export const AcceptedBody = Type.Object(
  {
    directive: Type.String(),
    uid: Type.String(),
    generation: Type.Integer(),
    issuedAt: Type.Optional(Type.String()),
    selectors: Type.Integer(),
    jobIds: Type.Array(Type.String()),
    duplicate: Type.Boolean(),
  },
  open,
);

export const IgnoredBody = Type.Object(
  { ignored: Type.Literal(true), reason: Type.String() },
  open,
);

/** A replayed Standard Webhooks id: the first delivery's answer, or only the flag. */
export const DuplicateBody = Type.Object({ duplicate: Type.Literal(true) }, open);

export const PlanBody = Type.Object({ dryRun: Type.Literal(true) }, open);

export const JobView = Type.Object({
  selectorIndex: Type.Integer(),
  jobId: Type.String(),
  state: Type.String(),
  attemptsMade: Type.Integer(),
  failedReason: Type.Union([Type.String(), Type.Null()]),
});
export type JobView = Static<typeof JobView>;

export const DirectiveView = Type.Object(
  {
    directive: Type.String(),
    generation: Type.Integer(),
    issuedAt: Type.Optional(Type.String()),
    paused: Type.Boolean(),
    inProgress: Type.Boolean({
      description:
        'Whether the latest run is still going: false once it FINISHED or FAILED (the jobs after a failed one wait in waiting-children for a retry, and run only then).',
    }),
    status: Type.Object({}, open),
    jobs: Type.Array(JobView),
  },
  open,
);

export const RetriedBody = Type.Object({ retried: Type.Array(Type.String()) }, open);

export const PausedBody = Type.Object(
  { directive: Type.String(), generation: Type.Integer(), paused: Type.Boolean() },
  open,
);

export const AbortedBody = Type.Object(
  {
    directive: Type.String(),
    generation: Type.Integer(),
    aborted: Type.String({ description: 'The run aborted: uid.g<generation>.r<runKey>.' }),
  },
  open,
);

/** The error answers every guarded route may give. */
export function errorResponses(...codes: number[]): Record<number, TSchema> {
  return Object.fromEntries(codes.map((code) => [code, ErrorBody]));
}
