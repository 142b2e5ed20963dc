/**
 * Every environment variable pod-bouncer reads, declared once: its type and bounds (a TypeBox
 * schema of the value), its default, the roles that read it, what it means, and how the Helm chart
 * sets it. `loadConfig` parses the environment from this table; `--help`, docs/configuration.md and
 * the chart's `config` values (and their part of values.schema.json) follow from it. The
 * declarations are kept by concern in variables/*.ts; this module puts them in one list.
 */

import { ACCESS } from './variables/access.js';
import { AUTHENTICATION, DASHBOARD } from './variables/auth.js';
import type { Role, Variable } from './variables/declare.js';
import { GATES } from './variables/gates.js';
import { KUBERNETES } from './variables/kubernetes.js';
import { LISTENER, REDIS } from './variables/listener-redis.js';
import { LOGS, NOTIFICATIONS } from './variables/notifications.js';
import { WORKFLOW } from './variables/workflow.js';

export {
  GROUPS,
  type ChartSource,
  type Group,
  type Role,
  type Variable,
} from './variables/declare.js';
export {
  CREDENTIAL_NAMESPACES_PATTERN,
  EVERY_NAMESPACE,
  NAMESPACE_PATTERN,
} from './variables/access.js';
export { SERVICE_ACCOUNT_PATTERN, TOKEN_NAME_PATTERN } from './variables/auth.js';
export { LOG_LEVELS } from './variables/notifications.js';

/** The declarations of every group, in the order `--help` and the docs list them. */
export const VARIABLES: readonly Variable[] = [
  ...LISTENER,
  ...REDIS,
  ...KUBERNETES,
  ...AUTHENTICATION,
  ...ACCESS,
  ...DASHBOARD,
  ...WORKFLOW,
  ...GATES,
  ...NOTIFICATIONS,
  ...LOGS,
];

const BY_NAME = new Map(VARIABLES.map((variable) => [variable.name, variable]));

/** The declaration of one variable; a name not in the table is a programming error. */
export function variable(name: string): Variable {
  const found = BY_NAME.get(name);
  if (found === undefined) throw new Error(`${name} is not a declared variable`);
  return found;
}

/** `config.<key>` of the chart's values for a variable: WORKER_CONCURRENCY → workerConcurrency. */
export function chartKey(name: string): string {
  return name.toLowerCase().replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** The variables a role reads, in the table's order; `all` reads both roles'. */
export function variablesOf(role: Role | 'all'): Variable[] {
  return VARIABLES.filter((v) => role === 'all' || v.roles.includes(role));
}
