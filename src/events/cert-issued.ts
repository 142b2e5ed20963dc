import type { DirectiveManifest, ObjectRef } from '../directive/types.js';

/** Which of the accepted body shapes an event arrived in (for logs and metrics). */
export type EventShape =
  | 'native-reference'
  | 'native-inline'
  | 'watch-event'
  | 'directive-object'
  | 'kubernetes-event'
  | 'argo-envelope'
  | 'cloudevent';

/**
 * What the sender saw of the directive, when its body carries it (a watch event's or bare
 * object's metadata, a Kubernetes Event's involvedObject, or `generation` in a native
 * reference). Only a hint of freshness: a cache at least this fresh may answer for the API.
 */
export interface SeenVersion {
  uid?: string;
  generation?: number;
  resourceVersion?: string;
}

/**
 * When the certificate was issued. `issuedAt` is the value that counts; `sentIssuedAt` is the
 * sender's own when it was ahead of the clock and `issuedAt` is the moment it was received
 * (`received.ts`).
 */
interface Issuance {
  issuedAt?: Date;
  sentIssuedAt?: Date;
}

/** Every accepted body, whatever its shape, becomes one of these. */
export type CertIssued =
  | ({ kind: 'reference'; ref: ObjectRef; seen?: SeenVersion; shape: EventShape } & Issuance)
  | ({ kind: 'inline'; manifest: DirectiveManifest; shape: EventShape } & Issuance)
  | { kind: 'ignored'; reason: string; shape: EventShape };
