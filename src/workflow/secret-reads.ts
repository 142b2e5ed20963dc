import type { ObjectRef } from '../directive/types.js';
import type { KubeGateway } from '../kube/gateway.js';
import { digestOf } from './wakeups.js';

/** A Secret read is shared by the jobs that ask within this long of its start. */
const SHARED_MS = 2000;

interface Read {
  startedAt: number;
  digest: Promise<string | undefined>;
}

/**
 * The digests of Secret keys rootCertSync compares, read once for the jobs that ask at about the
 * same time: a directive as Gloo's issuer writes it has hundreds of selectors naming the same
 * `cacerts`, each of which read it. A job takes a read only if it began at or after the job's
 * run was accepted (the issuer writes the Secret before it tells of it, so such a read holds the
 * issuance's root or a later one, as the job's own read would) and less than SHARED_MS ago.
 * Only digests are kept, never the Secret's bytes.
 */
export class SecretReads {
  private readonly reads = new Map<string, Read>();

  constructor(private readonly kube: Pick<KubeGateway, 'readSecretKey'>) {}

  /** The SHA-256 of the Secret's key (hex), undefined when absent, from a read begun `since`. */
  digest(
    ref: ObjectRef,
    key: string,
    since: number,
    now = Date.now(),
  ): Promise<string | undefined> {
    const id = `${ref.namespace}/${ref.name}/${key}`;
    const shared = this.reads.get(id);
    if (shared !== undefined && shared.startedAt >= since && now - shared.startedAt < SHARED_MS) {
      return shared.digest;
    }
    const digest = this.kube
      .readSecretKey(ref, key)
      .then((bytes) => (bytes === undefined ? undefined : digestOf(bytes)));
    const read = { startedAt: now, digest };
    this.reads.set(id, read);
    // A failed read is not shared: the next job asks again.
    digest.catch(() => this.reads.get(id) === read && this.reads.delete(id));
    return digest;
  }
}

const perGateway = new WeakMap<object, SecretReads>();

/** The process's shared reads: one set per gateway (one gateway per process). */
export function secretReadsOf(kube: Pick<KubeGateway, 'readSecretKey'>): SecretReads {
  let reads = perGateway.get(kube);
  if (reads === undefined) {
    reads = new SecretReads(kube);
    perGateway.set(kube, reads);
  }
  return reads;
}
