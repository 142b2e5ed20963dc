// Ages as the API server prints them in Table cells: apimachinery's duration.HumanDuration
// (k8s.io/apimachinery/pkg/util/duration), two or three significant figures.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** `HumanDuration` of a span in milliseconds: "45s", "3m20s", "2h5m", "4d3h", "2y30d". */
export function humanDuration(ms: number): string {
  // A deviation under two seconds is clock skew between machines: "almost now".
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) return withRest(minutes, 'm', seconds % 60, 's');
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) return withRest(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return withRest(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return withRest(years, 'y', days % 365, 'd');
  return `${years}y`;
}

function withRest(whole: number, unit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${whole}${unit}` : `${whole}${unit}${rest}${restUnit}`;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The age of an RFC 3339 timestamp, as a date cell: "<unknown>" when there is none, "<invalid>"
 * when it does not parse (metav1.Time's own parse), else its HumanDuration until `now`.
 */
export function ageOf(timestamp: string | undefined, now = Date.now()): string {
  if (timestamp === undefined || timestamp === '') return '<unknown>';
  if (!RFC3339.test(timestamp)) return '<invalid>';
  return humanDuration(now - Date.parse(timestamp));
}
