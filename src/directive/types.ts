/** The PodBounceDirective custom resource (internal.gloo.solo.io/v2), as pod-bouncer reads it. */

import type { Gate } from '../gates/types.js';

export const DIRECTIVE_GROUP = 'internal.gloo.solo.io';
export const DIRECTIVE_VERSION = 'v2';
export const DIRECTIVE_PLURAL = 'podbouncedirectives';
export const DIRECTIVE_KIND = 'PodBounceDirective';
export const DIRECTIVE_API_VERSION = `${DIRECTIVE_GROUP}/${DIRECTIVE_VERSION}`;

/** Set to "true" on a directive, no further pod of it is bounced until it is removed. */
export const PAUSED_ANNOTATION = 'pod-bouncer.io/paused';
/** Names the issuance a directive object describes (DESIGN §2 *Runs*). */
export const ISSUED_AT_ANNOTATION = 'pod-bouncer.io/issued-at';

export interface ObjectRef {
  name: string;
  namespace: string;
}

export interface RootCertSync {
  secretRef: ObjectRef;
  secretKey: string;
  configMapRef: ObjectRef;
  configMapKey: string;
}

/** How a chosen pod is bounced (DESIGN §4 step 3). */
export const BOUNCE_MODES = ['delete', 'evict', 'rollout'] as const;
export type BounceMode = (typeof BOUNCE_MODES)[number];

export interface PodSelector {
  namespace: string;
  /** All must match; an empty map selects every pod of the namespace. */
  labels: Record<string, string>;
  /** 0 means do not wait. */
  waitForReplicas: number;
  rootCertSync?: RootCertSync;
  /** Extension: an integer >= 1 or "N%"; default DEFAULT_MAX_UNAVAILABLE. */
  maxUnavailable?: number | string;
  /** Extension: default BOUNCE_MODE. */
  bounceMode?: BounceMode;
  /** Extension: seconds to wait after each batch's replacements are Ready; default DEFAULT_SOAK_SECONDS. */
  soakSeconds?: number;
}

export interface DirectiveSpec {
  meshRef?: ObjectRef;
  /** Extension: all must be open before any batch is sent (DESIGN §4 Gates). */
  gates?: Gate[];
  /** Extension: selectors of a run in progress at once (DESIGN §4 Order); default DEFAULT_MAX_CONCURRENT_SELECTORS. */
  maxConcurrentSelectors?: number;
  podsToBounce: PodSelector[];
}

export type DirectiveState = 'PENDING' | 'BOUNCING_PODS' | 'FAILED' | 'FINISHED';

export interface BouncedPods {
  bouncedPods: string[];
}

/** A Kubernetes status condition (metav1.Condition). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}

export interface DirectiveStatus {
  observedGeneration?: number;
  /** The issuance the described run serves; null in a patch removes it. */
  issuedAt?: string | null;
  conditions?: Condition[];
  state?: DirectiveState;
  error?: string;
  podsBounced?: BouncedPods[];
}

export interface DirectiveMetadata {
  name: string;
  namespace: string;
  uid: string;
  generation: number;
  resourceVersion: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A directive as the API server returns it: identity and generation are always present. */
export interface Directive {
  apiVersion: string;
  kind: string;
  metadata: DirectiveMetadata;
  spec: DirectiveSpec;
  status?: DirectiveStatus;
}

/** A directive as a caller writes it: the server assigns uid, generation and resourceVersion. */
export interface DirectiveManifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: DirectiveSpec;
}

export function directiveKey(ref: ObjectRef): string {
  return `${ref.namespace}/${ref.name}`;
}
