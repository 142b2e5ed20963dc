import { ISSUED_AT_ANNOTATION, type Directive } from '../directive/types.js';
import { describesRun, isLaterRun, runKeyOf, toldRunKey } from '../queue/run-identity.js';
import { BadEventError, InvalidDirectiveError } from './errors.js';
import { parseTime } from './fields.js';

/**
 * What the `pod-bouncer.io/issued-at` annotation says (DESIGN §2 *Runs*): nothing, an issuance,
 * or a value to be ignored (not a real instant, or more than 5 minutes ahead) with the reason.
 * `issuedAt` is the moment that counts: a value up to 5 minutes ahead of the clock is the moment it
 * was read, as for an event's `issuedAt`; `sentIssuedAt` is then the value as written.
 */
export type AnnotatedIssuance =
  | { kind: 'none' }
  | { kind: 'issued'; issuedAt: Date; sentIssuedAt?: Date }
  | { kind: 'invalid'; value: string; why: string };

/** Reads the annotation. Pure but for `now`. */
export function annotatedIssuance(
  directive: Pick<Directive, 'metadata'>,
  now = Date.now(),
): AnnotatedIssuance {
  const value = directive.metadata.annotations?.[ISSUED_AT_ANNOTATION];
  if (value === undefined) return { kind: 'none' };
  try {
    const issuedAt = parseTime(value, ISSUED_AT_ANNOTATION, now);
    if (issuedAt === undefined) return { kind: 'none' };
    if (issuedAt.getTime() <= now) return { kind: 'issued', issuedAt };
    return { kind: 'issued', issuedAt: new Date(now), sentIssuedAt: issuedAt };
  } catch (error) {
    if (!(error instanceof BadEventError || error instanceof InvalidDirectiveError)) throw error;
    const why =
      error instanceof InvalidDirectiveError
        ? 'is more than 5 minutes in the future'
        : 'is not an RFC 3339 instant such as 2026-11-29T12:00:00Z';
    return { kind: 'invalid', value, why };
  }
}

/**
 * Whether the directive's status already describes what the object asks for (DESIGN §4
 * *Controller mode*): its generation, and an annotation (if valid) not later than the status's
 * `issuedAt` (an absent `issuedAt` counts as older). Whoever wrote that status, such a directive
 * starts nothing: installing pod-bouncer never bounces a mesh by itself.
 */
export function describedByStatus(directive: Directive, now = Date.now()): boolean {
  const { status } = directive;
  const { generation } = directive.metadata;
  if (status === undefined || !describesRun(status, { generation })) return false;
  const annotated = annotatedIssuance(directive, now);
  if (annotated.kind !== 'issued') return true;
  // A status that tells no issuance it can be ordered by is older than the annotation's run.
  const told = toldRunKey(status);
  if (told === undefined) return false;
  const asked = runKeyOf(annotated.sentIssuedAt ?? annotated.issuedAt);
  return !isLaterRun({ generation, runKey: asked }, { generation, runKey: told });
}
