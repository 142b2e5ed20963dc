/** What a credential may do: the namespaces it may touch, and how much it may ask. */

import { Type } from 'typebox';

import { MAX_SELECTORS_CEILING } from '../../directive/bounds.js';
import { SERVICE_ACCOUNT_PATTERN, TOKEN_NAME_PATTERN } from './auth.js';
import { BOTH, SERVE, config, integer, requiredConfig, inGroup } from './declare.js';

/** Namespace names, as ALLOWED_NAMESPACES lists them; `*` alone chooses every namespace. */
export const NAMESPACE_PATTERN = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';
export const EVERY_NAMESPACE = '*';

/**
 * A CREDENTIAL_NAMESPACES value, `name=namespace|namespace,…`: a name is a token's, `hmac`,
 * `standard` or a service account's `ns:name`.
 */
export const CREDENTIAL_NAMESPACES_PATTERN = (() => {
  const name = `(${TOKEN_NAME_PATTERN.slice(1, -1)}|${SERVICE_ACCOUNT_PATTERN.slice(1, -1)})`;
  const namespace = NAMESPACE_PATTERN.slice(1, -1);
  const entry = `${name}=${namespace}(\\|${namespace})*`;
  return `^ *${entry}( *, *${entry})* *$`;
})();

/** Namespaces, rate and size limits of what a credential asks. */
export const ACCESS = inGroup('What a credential may do', [
  {
    name: 'ALLOWED_NAMESPACES',
    schema: Type.Union([
      Type.Array(Type.Literal(EVERY_NAMESPACE), { minItems: 1, maxItems: 1 }),
      Type.Array(Type.String({ pattern: NAMESPACE_PATTERN }), { minItems: 1, uniqueItems: true }),
    ]),
    defaultText: 'every namespace (warned at start-up)',
    roles: BOTH,
    doc: 'comma-separated namespaces directives, selectors and inline directives may touch; * for every namespace, chosen explicitly',
    chart: requiredConfig,
  },
  {
    name: 'CREDENTIAL_NAMESPACES',
    schema: Type.String({ pattern: CREDENTIAL_NAMESPACES_PATTERN }),
    defaultText: 'ALLOWED_NAMESPACES for every credential',
    roles: SERVE,
    doc: 'per-credential narrowing of ALLOWED_NAMESPACES, issuer=istio-system|bookinfo,ci=apps (token names, hmac, standard, namespace:name of a service account); a credential not listed gets ALLOWED_NAMESPACES',
    chart: config,
  },
  {
    name: 'RATE_LIMIT_PER_MINUTE',
    schema: integer(1, 1_000_000),
    default: 600,
    roles: SERVE,
    doc: 'requests each credential may make in any 60 s, counted across api replicas in Redis (429 above)',
    chart: config,
  },
  {
    name: 'INLINE_DIRECTIVES',
    schema: Type.Boolean(),
    default: true,
    roles: SERVE,
    doc: 'false refuses inline directives (403)',
    chart: config,
  },
  {
    name: 'MAX_SELECTORS',
    schema: integer(1, MAX_SELECTORS_CEILING),
    default: 1000,
    roles: SERVE,
    doc: "most selectors a directive may have (422 above); Gloo's issuer writes one per workload of the mesh",
    chart: config,
  },
  {
    name: 'DEFAULT_MAX_CONCURRENT_SELECTORS',
    schema: integer(1, MAX_SELECTORS_CEILING),
    default: 1,
    roles: BOTH,
    doc: 'maxConcurrentSelectors of a directive that sets none: selectors of a run with pods down at once',
    chart: config,
  },
  {
    name: 'MAX_RUNS_PER_HOUR',
    schema: integer(1, 1_000_000),
    default: 6,
    roles: BOTH,
    doc: 'runs a directive may start in an hour (429 too_many_runs above): a looping sender costs bounded restarts',
    chart: config,
  },
  {
    name: 'CLOUDEVENT_IDS_PER_DAY',
    schema: integer(1, 10_000_000),
    default: 10_000,
    roles: SERVE,
    doc: 'new CloudEvent ids each credential may have remembered in any 24 h (~300 bytes of Redis each; 429 rate_limited above, redeliveries still answered)',
    chart: config,
  },
]);
