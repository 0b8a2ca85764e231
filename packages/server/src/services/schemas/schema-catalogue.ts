/**
 * The JSON Schemas (2020-12) of every `ns.*.v1` document the service emits or accepts (CONTRACT section 16), one file
 * per document in packages/server/schemas/ (`<name>.schema.json`, shipped with the package). Any file added there is
 * served: each capability adds its own documents' schemas beside the others.
 * INVARIANT: a file is served only when its name is `ns.<document>.v<major>.schema.json`, it parses as JSON, and it
 * declares `$schema` 2020-12 and an `$id`; a malformed file fails the first read loudly, it is never served half-read.
 * The folder is read once per process: the schemas are part of the release, not of a deployment's data.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { AarError } from '@aar/core';

export const JSON_SCHEMA_DRAFT = 'https://json-schema.org/draft/2020-12/schema';
/** `ns.<document>.v<major>`, e.g. `ns.webhook.v1` */
export const SCHEMA_NAME_PATTERN = /^ns\.[a-z][a-z0-9_]*\.v[1-9][0-9]*$/;
const FILE_SUFFIX = '.schema.json';

export interface SchemaEntry {
  name: string;
  $id: string;
  title: string;
  description: string;
  /** the file's exact text, served as is */
  text: string;
  document: Record<string, unknown>;
}

/** From src/services/schemas/ and dist/services/schemas/ alike: the package's own schemas/ folder. */
export const SCHEMA_FOLDER = new URL('../../../schemas/', import.meta.url);

let cache: ReadonlyMap<string, SchemaEntry> | undefined;

export function readSchemaFolder(folder: URL = SCHEMA_FOLDER): Map<string, SchemaEntry> {
  const entries = new Map<string, SchemaEntry>();
  for (const file of readdirSync(folder).sort()) {
    if (!file.endsWith(FILE_SUFFIX)) continue;
    const name = file.slice(0, -FILE_SUFFIX.length);
    const fail = (why: string) => new Error(`schemas/${file}: ${why}`);
    if (!SCHEMA_NAME_PATTERN.test(name)) throw fail('the name is not `ns.<document>.v<major>`');
    const text = readFileSync(new URL(file, folder), 'utf8');
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      throw fail('is not JSON');
    }
    if (typeof document !== 'object' || document === null || Array.isArray(document)) throw fail('is not an object');
    const doc = document as Record<string, unknown>;
    if (doc.$schema !== JSON_SCHEMA_DRAFT) throw fail(`\`$schema\` must be ${JSON_SCHEMA_DRAFT}`);
    if (typeof doc.$id !== 'string' || doc.$id.length === 0) throw fail('has no `$id`');
    entries.set(name, {
      name,
      $id: doc.$id,
      title: typeof doc.title === 'string' ? doc.title : name,
      description: typeof doc.description === 'string' ? doc.description : '',
      text,
      document: doc,
    });
  }
  return entries;
}

/** Every schema, by name, in name order. */
export function schemaCatalogue(): ReadonlyMap<string, SchemaEntry> {
  cache ??= readSchemaFolder();
  return cache;
}

export function getSchema(name: string): SchemaEntry {
  const entry = schemaCatalogue().get(name);
  if (!entry) {
    throw new AarError('not_found', `no json schema is named \`${name.slice(0, 128)}\``, {
      errors: [{ path: '/params/name', message: 'not a schema name listed by GET /v1/schemas' }],
    });
  }
  return entry;
}
