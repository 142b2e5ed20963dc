import { ConflictError } from '../errors.js';
import { directiveKey, type Directive, type DirectiveManifest } from '../directive/types.js';
import type { CertIssued, SeenVersion } from '../events/cert-issued.js';
import { checkedSpec } from '../events/directive-object.js';
import { inlineFieldManager } from '../kube/field-manager.js';
import { ingestDirectiveReads } from '../metrics/registry.js';
import type { IngestDeps } from './deps.js';
import { FieldManagerConflictError } from './errors.js';

type Reference = Extract<CertIssued, { kind: 'reference' }>;

/**
 * Whether a cached copy is at least as fresh as what the sender saw. Then answering from it is
 * answering as of a moment no earlier than the event itself, which is all a reference promises;
 * a newer generation the cache holds is the cluster's, and wins. Without a hint, or when the
 * cache is behind it, only the API server can tell a spec changed a moment ago.
 */
export function atLeastAsFresh(cached: Directive, seen: SeenVersion | undefined): boolean {
  if (seen === undefined) return false;
  const { uid, generation, resourceVersion } = cached.metadata;
  if (seen.uid !== undefined && seen.uid !== uid) return false;
  if (seen.generation !== undefined) return generation >= seen.generation;
  if (seen.resourceVersion === undefined) return false;
  // resourceVersions are opaque by contract; etcd's are increasing integers, as the watch caches
  // already assume. A non-numeric one makes the comparison false: the API answers instead.
  return Number(resourceVersion) >= Number(seen.resourceVersion);
}

async function readReference(deps: IngestDeps, event: Reference): Promise<Directive> {
  const cached = deps.directives?.peek(event.ref);
  if (cached !== undefined && atLeastAsFresh(cached, event.seen)) {
    ingestDirectiveReads.inc({ source: 'cache' });
    return cached;
  }
  ingestDirectiveReads.inc({ source: 'api' });
  const directive = await deps.kube.getDirective(event.ref);
  deps.directives?.offer(directive);
  return directive;
}

/**
 * Server-side apply without force, as the sending credential's own field manager: a directive
 * another field manager owns (another credential's included) is a 409. A dry run asks the API
 * server the same (`dryRun=All`), which judges ownership as it would and persists nothing.
 */
async function applyInline(
  deps: Pick<IngestDeps, 'kube'>,
  manifest: DirectiveManifest,
  sender: string,
  dryRun = false,
): Promise<Directive> {
  try {
    return await deps.kube.applyDirective(manifest, inlineFieldManager(sender), { dryRun });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    throw new FieldManagerConflictError(
      `The directive ${directiveKey(manifest.metadata)} is managed by another field manager; nothing was changed (${error.message}).`,
    );
  }
}

/**
 * What a dry run of an inline directive must meet, as the run would: the 409 of a directive
 * another field manager owns, and whatever else the API server refuses the apply for. Answers the
 * directive as the apply would leave it.
 */
export async function checkInlineApply(
  deps: Pick<IngestDeps, 'kube'>,
  manifest: DirectiveManifest,
  sender: string,
): Promise<Directive> {
  return applyInline(deps, manifest, sender, true);
}

/**
 * Directives already checked, by identity: the watch cache hands out the same object for a
 * directive until the directive changes (a change is a new object), so a repeated event skips the
 * check and reuses the checked copy.
 */
const checkedDirectives = new WeakMap<Directive, Directive>();

function checkedOnce(directive: Directive): Directive {
  let checked = checkedDirectives.get(directive);
  if (checked === undefined) {
    checked = { ...directive, spec: checkedSpec(directive.spec) };
    checkedDirectives.set(directive, checked);
  }
  return checked;
}

/**
 * The directive an event is about: written to the cluster (inline, as `sender`'s field manager),
 * or read (by reference) from the process's watch cache when that is at least as fresh as the
 * event, else from the API.
 */
export async function resolveDirective(
  deps: IngestDeps,
  event: Exclude<CertIssued, { kind: 'ignored' }>,
  sender: string,
): Promise<Directive> {
  const directive =
    event.kind === 'inline'
      ? await applyInline(deps, event.manifest, sender)
      : await readReference(deps, event);
  // The cluster may serve the CRD without its schema: check what it holds before acting on it.
  return checkedOnce(directive);
}
