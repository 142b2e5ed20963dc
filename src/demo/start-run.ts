import { setTimeout as sleep } from 'node:timers/promises';
import { ISSUED_AT_ANNOTATION, type DirectiveManifest } from '../directive/types.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { Print } from './progress.js';

export interface DirectiveRef {
  namespace: string;
  name: string;
}

/** How the demo starts its run: the selector jobs to follow, or undefined when it was refused. */
export type StartRun = () => Promise<string[] | undefined>;

/** The default demo: a cert-issued event posted to the api, as an issuer sends it. */
export function byEvent(url: string, ref: DirectiveRef, print: Print): StartRun {
  return async () => {
    print(`\nPOST ${url}/v1/events for directive ${ref.namespace}/${ref.name}`);
    const response = await fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ directive: ref, issuedAt: new Date().toISOString() }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    print(`  → ${describeAnswer({ status: response.status, body })}\n`);
    return response.status === 202 ? (body.jobIds as string[]) : undefined;
  };
}

const FIELD_MANAGER = 'pod-bouncer-demo';
const JOBS_WITHIN_MS = 30_000;

/**
 * `demo --watch-directives`: the directive is created by server-side apply, as kubectl or a GitOps
 * tool would, with the issued-at annotation of this issuance; no event is posted. The workers'
 * controller starts its run; its jobs are read from the api's directive route.
 */
export function byApply(
  url: string,
  kube: KubeGateway,
  manifest: DirectiveManifest,
  print: Print,
): StartRun {
  return async () => {
    const { namespace, name } = manifest.metadata;
    const issuedAt = new Date().toISOString();
    const annotated = {
      ...manifest,
      metadata: { ...manifest.metadata, annotations: { [ISSUED_AT_ANNOTATION]: issuedAt } },
    };
    print(
      `\nkubectl apply --server-side: directive ${namespace}/${name} (${ISSUED_AT_ANNOTATION}=${issuedAt})`,
    );
    const applied = await kube.applyDirective(annotated, FIELD_MANAGER);
    print(`  → generation ${applied.metadata.generation}; no event posted, the workers watch it\n`);
    const deadline = Date.now() + JOBS_WITHIN_MS;
    while (Date.now() < deadline) {
      const response = await fetch(`${url}/v1/directives/${namespace}/${name}`);
      const body = (await response.json()) as { jobs?: { jobId: string }[] };
      const jobs = body.jobs ?? [];
      if (jobs.length > 0) return jobs.map((job) => job.jobId);
      await sleep(100);
    }
    return undefined;
  };
}

/** The 202 in words: which run, and its selector jobs (`<uid>.g<generation>.r<runKey>.s<index>`). */
function describeAnswer(answer: { status: number; body: Record<string, unknown> }): string {
  const { generation, jobIds, message } = answer.body;
  if (answer.status !== 202 || !Array.isArray(jobIds)) {
    return `${answer.status}: ${typeof message === 'string' ? message : 'refused'}`;
  }
  const first = String(jobIds[0]);
  return `202 accepted: generation ${String(generation)}, ${jobIds.length} selector job(s), ${first} to ${first.replace(/\.s0$/, `.s${jobIds.length - 1}`)}`;
}
