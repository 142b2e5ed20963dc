/**
 * What people read about the configuration, written from the declarations in `variables.ts`: the
 * `--help` lines of each role, and docs/configuration.md (a test fails when that file is stale).
 */

import { GROUPS, VARIABLES, chartKey, variablesOf, type Role, type Variable } from './variables.js';

/** The chart's `config` values: the variables it sets from `config.<key>`. */
export function chartConfigVariables(): Variable[] {
  return VARIABLES.filter((variable) => variable.chart.kind === 'config');
}

function isRequired(variable: Variable): boolean {
  return variable.chart.kind === 'config' && variable.chart.required === true;
}

/**
 * `properties.config` of the chart's values.schema.json: each key's type and bounds are its
 * variable's schema, its default the program's. Keys with a default are required (values.yaml
 * carries them), and so is ALLOWED_NAMESPACES, which the chart cannot leave to the program: its
 * RBAC reaches every namespace. Other keys without a default are optional and left unset.
 */
export function chartConfigSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const variable of chartConfigVariables()) {
    properties[chartKey(variable.name)] = {
      ...JSON.parse(JSON.stringify(variable.schema)),
      ...(variable.default === undefined ? {} : { default: variable.default }),
      description: `${variable.name}: ${variable.doc}`,
    };
  }
  return {
    type: 'object',
    additionalProperties: false,
    description: 'Environment of the api and worker; docs/configuration.md says what each does.',
    properties,
    required: chartConfigVariables()
      .filter((variable) => variable.default !== undefined || isRequired(variable))
      .map((variable) => chartKey(variable.name)),
  };
}

/** The default as a person reads it: `25%`, `true`, `every namespace (warned at start-up)`, or —. */
export function defaultOf(variable: Variable): string {
  if (variable.defaultText !== undefined) return variable.defaultText;
  if (variable.default === undefined) return '—';
  return Array.isArray(variable.default) ? variable.default.join(',') : String(variable.default);
}

/** `--help` lines of a role: name, meaning and default. */
export function helpLines(role: Role | 'all'): [string, string][] {
  return variablesOf(role).map((variable) => {
    const fallback = defaultOf(variable);
    const suffix = fallback === '—' ? '' : ` (default ${fallback})`;
    return [variable.name, `${variable.doc}${suffix}`];
  });
}

function rolesOf(variable: Variable): string {
  return variable.roles.length === 2 ? 'both' : (variable.roles[0] as Role);
}

function chartOf(variable: Variable): string {
  switch (variable.chart.kind) {
    case 'config':
      return `\`config.${chartKey(variable.name)}\``;
    case 'values':
      return variable.chart.path
        .split(/, | or /)
        .map((path) => `\`${path}\``)
        .join(', ');
    case 'fixed':
      return variable.chart.reason;
  }
}

const escape = (cell: string): string => cell.replaceAll('|', '\\|');

/** docs/configuration.md. */
export function configurationReference(): string {
  const lines = [
    '# Configuration',
    '',
    '<!-- Written by `npm run docs:config` from src/config/variables.ts; edit that file, not this one. -->',
    '',
    'pod-bouncer reads only environment variables, once at start-up. A bad value stops the process',
    'with one sentence naming the variable. `serve` reads the variables of the api, `work` those of',
    'the worker, `all` both; `pod-bouncer <role> --help` lists them. Unset and empty are the same,',
    'except for `QUEUE_PREFIX`, where empty is an error.',
    '',
    'The Helm chart sets each variable from the value named in the last column. Its defaults are the',
    "program's: a Helm install behaves as `pod-bouncer all` with no variables, except that the chart",
    'requires `config.allowedNamespaces` to be chosen (a list, or `["*"]`), since its RBAC reaches',
    'every namespace.',
  ];
  for (const group of GROUPS) {
    const variables = VARIABLES.filter((variable) => variable.group === group);
    if (variables.length === 0) continue;
    lines.push('', `## ${group}`, '', '| variable | default | role | meaning | chart |');
    lines.push('| --- | --- | --- | --- | --- |');
    for (const variable of variables) {
      const secret = variable.secret ? ' (a credential: from a Secret)' : '';
      const fallback = defaultOf(variable);
      const cells = [
        `\`${variable.name}\``,
        fallback === '—' ? '—' : `\`${fallback}\``,
        rolesOf(variable),
        `${variable.doc}${secret}`,
        chartOf(variable),
      ];
      lines.push(`| ${cells.map(escape).join(' | ')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
