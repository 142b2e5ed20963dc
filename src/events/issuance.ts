import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ISSUED_AT_ANNOTATION, type Directive } from '../directive/types.js';
import type { CertIssued } from '../events/cert-issued.js';
import type { DirectiveEvent } from '../kube/gateway.js';
import type { Logger } from '../logger.js';
import { plainText } from '../plain-text.js';
import { annotatedIssuance } from './issued-at.js';

type Accepted = Exclude<CertIssued, { kind: 'ignored' }>;

/** The issuance a run serves, and whether it names one (a later one then starts a new run). */
export interface Issuance {
  issuedAt?: Date;
  sentIssuedAt?: Date;
  names: boolean;
}

/** What reporting an ignored annotation needs (the api's and the controller's deps alike). */
export interface IssuanceDeps {
  config: { queuePrefix: string };
  redis: Redis;
  log: Logger;
  kube: { recordEvent(directive: Directive, event: DirectiveEvent): Promise<unknown> };
}

/** Native and CloudEvent events name an issuance; the object shapes only describe the directive. */
function namesIssuance(event: Accepted): boolean {
  return (
    event.shape === 'native-reference' ||
    event.shape === 'native-inline' ||
    event.shape === 'cloudevent'
  );
}

/** A Warning repeated for every watch event of the same value would bury the directive's Events. */
const WARNED_FOR_SECONDS = 3600;

/**
 * An annotation that cannot name an issuance: ignored, with a Warning Event `InvalidIssuedAt`
 * once an hour per directive and value (decided in Redis, so that replicas agree). Never throws.
 */
export async function warnInvalidIssuedAt(
  deps: IssuanceDeps,
  directive: Directive,
  value: string,
  why: string,
): Promise<void> {
  const digest = createHash('sha256').update(value).digest('hex').slice(0, 16);
  const key = `${deps.config.queuePrefix}:bounce:invalid-issued-at:${directive.metadata.uid}:${digest}`;
  const first = await deps.redis.set(key, '1', 'EX', WARNED_FOR_SECONDS, 'NX').catch(() => null);
  if (first !== 'OK') return;
  // The sender's value, without what would act on a terminal (`kubectl describe`): quoted, short.
  const shown = JSON.stringify(
    plainText(value)
      .slice(0, 64)
      .replace(/[\ud800-\udbff]$/, ''),
  );
  const message = `The annotation ${ISSUED_AT_ANNOTATION}=${shown} ${why}; it is ignored and starts no run.`;
  await deps.kube
    .recordEvent(directive, { type: 'Warning', reason: 'InvalidIssuedAt', message })
    .catch((error: unknown) => deps.log.warn({ err: error }, 'could not record InvalidIssuedAt'));
}

/**
 * The issuance of an event about `directive` (DESIGN §2 *Runs*): a native or CloudEvent
 * `issuedAt` when the event carries one; otherwise the `pod-bouncer.io/issued-at` annotation,
 * which then names the issuance (object shapes included); otherwise what the event carries
 * (an object shape's moment chooses pods but names no issuance). Pure but for the clock; an
 * annotation that cannot name one is returned as `ignored`, for the caller to report.
 */
export function issuanceFrom(
  event: Accepted,
  directive: Directive,
): Issuance & { ignored?: { value: string; why: string } } {
  const names = namesIssuance(event);
  const carried: Issuance = {
    ...(event.issuedAt === undefined ? {} : { issuedAt: event.issuedAt }),
    ...(event.sentIssuedAt === undefined ? {} : { sentIssuedAt: event.sentIssuedAt }),
    names,
  };
  if (names && event.issuedAt !== undefined) return carried;
  const annotated = annotatedIssuance(directive);
  if (annotated.kind === 'issued') {
    const { issuedAt, sentIssuedAt } = annotated;
    return { issuedAt, ...(sentIssuedAt === undefined ? {} : { sentIssuedAt }), names: true };
  }
  if (annotated.kind === 'invalid') {
    return { ...carried, ignored: { value: annotated.value, why: annotated.why } };
  }
  return carried;
}

/** `issuanceFrom`, with the `InvalidIssuedAt` Warning of an ignored annotation recorded. */
export async function issuanceOf(
  deps: IssuanceDeps,
  event: Accepted,
  directive: Directive,
): Promise<Issuance> {
  const { ignored, ...issuance } = issuanceFrom(event, directive);
  if (ignored !== undefined) await warnInvalidIssuedAt(deps, directive, ignored.value, ignored.why);
  return issuance;
}
