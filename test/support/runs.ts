import { TOKEN, eventually, type Harness } from './harness.js';

/** The jobs of the directive's latest run, as its route lists them. */
export async function runJobs(h: Harness, namespace: string, name: string) {
  return (await h.get(`/v1/directives/${namespace}/${name}`)).body.jobs as {
    jobId: string;
    state: string;
  }[];
}

/** Waits until every job of the run is in one of `over` (by default failed or completed). */
export async function waitForRunOver(
  h: Harness,
  namespace: string,
  name: string,
  over = ['failed', 'completed'],
) {
  return eventually('every job of the run over', async () => {
    const jobs = await runJobs(h, namespace, name);
    return jobs.every((job) => over.includes(job.state)) ? jobs : undefined;
  });
}

/** The retry route, as the static token. */
export function retryRun(h: Harness, namespace: string, name: string): Promise<Response> {
  return fetch(`${h.serve.url}/v1/directives/${namespace}/${name}/retry`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
}
