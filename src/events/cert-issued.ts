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

/** Every accepted body, whatever its shape, becomes one of these. */
export type CertIssued =
  | { kind: 'reference'; ref: ObjectRef; issuedAt?: Date; shape: EventShape }
  | { kind: 'inline'; manifest: DirectiveManifest; issuedAt?: Date; shape: EventShape }
  | { kind: 'ignored'; reason: string; shape: EventShape };
