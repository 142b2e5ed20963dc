// Writes what follows from the declarations in src/config/variables.ts: docs/configuration.md and
// the `config` part of the chart's values.schema.json (formatted as the repository's Prettier does).
import { readFileSync, writeFileSync } from 'node:fs';

import { format, resolveConfig } from 'prettier';

import { chartConfigSchema, configurationReference } from '../src/config/reference.js';

const docs = new URL('../docs/configuration.md', import.meta.url);
writeFileSync(docs, configurationReference());
console.log(`wrote ${docs.pathname}`);

const schemaFile = new URL('../charts/pod-bouncer/values.schema.json', import.meta.url);
const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as {
  properties: Record<string, unknown>;
};
schema.properties.config = chartConfigSchema();
const options = { ...(await resolveConfig(schemaFile)), parser: 'json' };
writeFileSync(schemaFile, await format(JSON.stringify(schema, null, 2), options));
console.log(`wrote ${schemaFile.pathname}`);
