/** How callers of the events endpoint authenticate, and the dashboard's basic auth. */

import { Type } from 'typebox';

import { SERVE, config, integer, text, values, inGroup } from './declare.js';

/** The name of a `name=token` entry of WEBHOOK_TOKENS: a DNS label. */
export const TOKEN_NAME_PATTERN = '^[a-z0-9-]{1,63}$';
/** A service account, `namespace:name`, as WEBHOOK_ALLOWED_SERVICEACCOUNTS lists it. */
export const SERVICE_ACCOUNT_PATTERN = '^[a-z0-9.-]+:[a-z0-9.-]+$';

/** Credentials of the events endpoint, and the bounds of a body. */
export const AUTHENTICATION = inGroup('Authentication of the events endpoint', [
  {
    name: 'WEBHOOK_AUTH',
    schema: Type.Enum(['none']),
    roles: SERVE,
    doc: '"none" accepts unauthenticated events; it must be chosen explicitly',
    chart: values('auth.none'),
  },
  {
    name: 'WEBHOOK_TOKENS',
    schema: text(),
    roles: SERVE,
    doc: 'comma-separated static bearer tokens, each token or name=token (a DNS label, then at least 16 characters; else named token<i>)',
    chart: values('auth.tokensSecret'),
    secret: true,
  },
  {
    name: 'WEBHOOK_HMAC_SECRET',
    schema: text(),
    roles: SERVE,
    doc: 'secret of X-Signature-256 HMAC signatures, which admit POST /v1/events only',
    chart: values('auth.hmacSecret'),
    secret: true,
  },
  {
    name: 'WEBHOOK_STANDARD_SECRET',
    schema: Type.String({ pattern: '^whsec_' }),
    roles: SERVE,
    doc: 'Standard Webhooks signing secret (whsec_ and a base64 key of at least 16 bytes), whose signatures admit POST /v1/events only',
    chart: values('auth.standardSecret'),
    secret: true,
  },
  {
    name: 'WEBHOOK_TOKENREVIEW_AUDIENCE',
    schema: text(),
    roles: SERVE,
    doc: 'audience of the service-account tokens checked with TokenReview',
    chart: values('auth.tokenReview.audience'),
  },
  {
    name: 'WEBHOOK_ALLOWED_SERVICEACCOUNTS',
    schema: text(),
    roles: SERVE,
    doc: 'namespace:name,… service accounts allowed with TokenReview',
    chart: values('auth.tokenReview.allowedServiceAccounts'),
  },
  {
    name: 'BODY_LIMIT_BYTES',
    schema: integer(1024, 64 * 1_048_576),
    default: 1_048_576,
    roles: SERVE,
    doc: 'largest event body (413 above)',
    chart: config,
  },
  {
    name: 'BODY_TIMEOUT_SECONDS',
    schema: integer(1, 600),
    default: 10,
    roles: SERVE,
    doc: 'time allowed to receive an event body once its headers arrived (408 after it)',
    chart: config,
  },
]);

/** Basic auth of /admin/queues. */
export const DASHBOARD = inGroup('Dashboard', [
  {
    name: 'DASHBOARD_USER',
    schema: text(),
    roles: SERVE,
    doc: 'basic-auth user of /admin/queues (with DASHBOARD_PASSWORD; unset: no dashboard)',
    chart: values('dashboard.existingSecret'),
    secret: true,
  },
  {
    name: 'DASHBOARD_PASSWORD',
    schema: text(),
    roles: SERVE,
    doc: 'basic-auth password of /admin/queues',
    chart: values('dashboard.existingSecret'),
    secret: true,
  },
]);
