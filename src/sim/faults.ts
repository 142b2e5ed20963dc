// Fault injection: errors and latency on a deterministic (seeded) share of matching requests.
import { injectedFailure } from './api-errors.js';
import type { ApiError } from './api-errors.js';
import { mulberry32 } from './rng.js';
import type { FaultSpec } from './types.js';

export interface RequestTarget {
  method: string;
  resource: string;
  subresource?: string;
}

export interface FaultDecision {
  latencyMs: number;
  failure?: ApiError;
  /** The failure replaces the answer after the request took effect. */
  afterEffect: boolean;
  retryAfterSeconds?: number;
}

const NONE: FaultDecision = { latencyMs: 0, afterEffect: false };

export class FaultInjector {
  private spec: FaultSpec | null = null;
  /** Failures injected under the current spec (for its `limit`). */
  private injected = 0;
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = mulberry32(seed);
  }

  set(spec: FaultSpec | null): void {
    if (spec?.errorRate !== undefined && (spec.errorRate < 0 || spec.errorRate > 1)) {
      throw new Error('FaultSpec.errorRate must be between 0 and 1');
    }
    this.spec = spec ? structuredClone(spec) : null;
    this.injected = 0;
  }

  /** Drawn first, then bounded by `limit`, so that a limit does not change the draws. */
  private fails(spec: FaultSpec): boolean {
    return draws(spec, this.random) && this.injected < (spec.limit ?? Infinity);
  }

  decide(target: RequestTarget): FaultDecision {
    const spec = this.spec;
    if (!spec || !applies(spec, target)) return NONE;
    const latencyMs = spec.latencyMs ?? 0;
    const afterEffect = spec.afterEffect ?? false;
    if (!this.fails(spec)) return { latencyMs, afterEffect };
    this.injected += 1;
    const retryAfterSeconds = spec.retryAfterSeconds ?? 1;
    const status = spec.status ?? 500;
    return {
      latencyMs,
      afterEffect,
      failure: injectedFailure(status, retryAfterSeconds),
      retryAfterSeconds: status === 429 ? retryAfterSeconds : undefined,
    };
  }
}

/** Whether this request fails: drawn only for requests that can, so a sequence replays from the seed. */
function draws(spec: FaultSpec, random: () => number): boolean {
  return (spec.errorRate ?? 0) > 0 && random() < (spec.errorRate ?? 0);
}

function applies(spec: FaultSpec, target: RequestTarget): boolean {
  const methodOk = !spec.methods || spec.methods.some((m) => m.toUpperCase() === target.method);
  const resources = spec.resources;
  const resourceOk =
    !resources ||
    resources.includes(target.resource) ||
    (target.subresource !== undefined && resources.includes(target.subresource));
  return methodOk && resourceOk;
}
