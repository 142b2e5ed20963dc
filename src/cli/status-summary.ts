/** One selector's line of `pod-bouncer status`: its counts, gate and job state. */
export interface SelectorLine {
  index: number;
  count: number;
  bounced?: number;
  chosen?: number;
  ready?: number;
  wanted?: number;
  gate: string;
  state: string;
}

/** Above this many selectors, `status` summarizes unless asked for every line (`--all`). */
export const SUMMARY_ABOVE = 20;
/** In-progress selectors listed under the summary, oldest first. */
const LISTED = 10;

const DONE = new Set(['completed']);

/** In progress: pods chosen (the status lists them) and the job not over. */
function inProgress(line: SelectorLine): boolean {
  return line.chosen !== undefined && !DONE.has(line.state) && line.state !== 'failed';
}

/**
 * The run's own count of selectors in progress, from the Ready message's summary ("120/1000
 * selectors done, 50 in progress, …"): the worker knows which have bounced a pod (DESIGN §4
 * Order), the status only which have chosen theirs.
 */
export function inProgressOf(readyMessage: string | undefined): number | undefined {
  const match = /^\d+\/\d+ selectors done, (\d+) in progress/.exec(readyMessage ?? '');
  return match === null ? undefined : Number(match[1]);
}

/**
 * One line of counts (done, in progress, waiting, gated, failed; the oldest in progress named),
 * then the selectors in progress, at most LISTED of them: a run of a thousand selectors is read at
 * a glance, its busy part line by line. `reported`: the run's own count of selectors in progress,
 * when its Ready message gives one; chosen pods alone do not make a selector in progress.
 */
export function summaryLines(
  lines: SelectorLine[],
  render: (line: SelectorLine) => string,
  reported?: number,
): string[] {
  const done = lines.filter((line) => DONE.has(line.state)).length;
  const failed = lines.filter((line) => line.state === 'failed');
  const chosen = lines.filter(inProgress);
  const busy = reported === undefined ? chosen : chosen.slice(0, reported);
  const gated = lines.filter((line) => !inProgress(line) && /gate|root cert/i.test(line.gate));
  const waiting = lines.length - done - failed.length - busy.length;
  const parts = [
    `${done}/${lines.length} selectors done`,
    `${busy.length} in progress`,
    `${waiting} waiting (${gated.length} gated)`,
  ];
  if (failed.length > 0)
    parts.push(`${failed.length} failed (first: selector ${failed[0]!.index + 1})`);
  const oldest = busy[0];
  if (oldest !== undefined) parts.push(`oldest in progress: selector ${oldest.index + 1}`);
  const listed = busy.slice(0, LISTED).map(render);
  const more = busy.length - listed.length;
  const tail = more > 0 ? [`… ${more} more in progress (--all lists every selector)`] : [];
  return [parts.join(', '), ...listed, ...tail];
}
