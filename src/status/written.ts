import type { Directive, DirectiveStatus, ObjectRef } from '../directive/types.js';
import type { DirectiveEvent } from '../kube/gateway.js';
import type { Transition } from './projection.js';

/** The run a write is for: a newer generation or another uid is never written. */
export type WriteTarget = ObjectRef & {
  uid: string;
  generation: number;
  /** The run's key, when the caller knows it: a status that tells a later run is left alone. */
  runKey?: string;
  selectorIndex?: number;
};

/** One transition of a write, with the run it is for. */
export interface Written {
  target: WriteTarget;
  transition: Transition;
}

/** A transition the API server accepted: what observers (metrics, notifications) are told. */
export interface TransitionWritten extends Written {
  /** The status the patch was written over. */
  before: DirectiveStatus;
  /** The Event recorded with it, if any (progress within a wait records none). */
  event: DirectiveEvent | undefined;
  /** The directive as the API server returned it after the patch. */
  directive: Directive;
}
