/**
 * JSON Schemas (CONTRACT section 16): every file in packages/server/schemas/ compiles under JSON Schema 2020-12 in
 * strict mode (with the others, for `$ref`s between them); GET /v1/schemas lists exactly the folder, without a
 * credential, and GET /v1/schemas/{name} serves each file byte for byte; a malformed file is refused by name; every
 * response carries `aar-version`.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WEBHOOK_ENVELOPE_SCHEMA } from '@aar/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_VERSION } from '../../src/http/server-version.ts';
import { readSchemaFolder, SCHEMA_FOLDER } from '../../src/services/schemas/schema-catalogue.ts';
import { schemaValidator, validatorFor } from '../support/schema-validation.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const files = readdirSync(SCHEMA_FOLDER).filter((f) => f.endsWith('.schema.json'));
const names = files.map((f) => f.slice(0, -'.schema.json'.length));

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => rt?.close());

describe('the schema files', () => {
  it('are 2020-12 schemas with unique ids, and each compiles in strict mode with the others loaded', () => {
    expect(names).toEqual(expect.arrayContaining(['ns.webhook.v1', 'ns.decision_map.v1', 'ns.evidence_pack.v1']));
    const ids = new Set<string>();
    for (const name of names) {
      const doc = JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_FOLDER), 'utf8'));
      expect(doc.$schema, name).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(typeof doc.$id, name).toBe('string');
      expect(ids.has(doc.$id), `${name}: duplicate $id ${doc.$id}`).toBe(false);
      ids.add(doc.$id);
    }
    schemaValidator();
    for (const name of names) expect(() => validatorFor(name), name).not.toThrow();
  });

  it('keep ns.webhook.v1 identical to the envelope schema core publishes in the event catalogue', () => {
    const file = JSON.parse(readFileSync(new URL('ns.webhook.v1.schema.json', SCHEMA_FOLDER), 'utf8'));
    expect(file).toEqual(WEBHOOK_ENVELOPE_SCHEMA);
  });

  it('refuses a folder holding a file of another name, a non-JSON file or one without $schema, naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aar-schemas-'));
    const folder = pathToFileURL(`${dir}/`);
    try {
      const ok = { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'urn:x:ns.a.v1', type: 'object' };
      writeFileSync(join(dir, 'ns.a.v1.schema.json'), JSON.stringify(ok));
      writeFileSync(join(dir, 'README.md'), 'ignored: not a schema file');
      expect([...readSchemaFolder(folder).keys()]).toEqual(['ns.a.v1']);
      writeFileSync(join(dir, 'Webhook.schema.json'), JSON.stringify(ok));
      expect(() => readSchemaFolder(folder)).toThrow('schemas/Webhook.schema.json: the name is not');
      rmSync(join(dir, 'Webhook.schema.json'));
      writeFileSync(join(dir, 'ns.b.v1.schema.json'), '{ not json');
      expect(() => readSchemaFolder(folder)).toThrow('schemas/ns.b.v1.schema.json: is not JSON');
      writeFileSync(
        join(dir, 'ns.b.v1.schema.json'),
        JSON.stringify({ ...ok, $schema: 'http://json-schema.org/draft-07/schema#' }),
      );
      expect(() => readSchemaFolder(folder)).toThrow('`$schema` must be');
      writeFileSync(join(dir, 'ns.b.v1.schema.json'), JSON.stringify({ $schema: ok.$schema }));
      expect(() => readSchemaFolder(folder)).toThrow('has no `$id`');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('GET /v1/schemas', () => {
  it('lists every file of the folder without a credential, each with its href', async () => {
    const res = await rt.app.inject({ method: 'GET', url: '/v1/schemas' });
    expect(res.statusCode).toBe(200);
    const items = res.json().items as Array<{ name: string; id: string; href: string; title: string }>;
    expect(items.map((i) => i.name)).toEqual([...names].sort());
    const webhook = items.find((i) => i.name === 'ns.webhook.v1');
    expect(webhook).toMatchObject({ id: 'urn:aar:schema:ns.webhook.v1', href: '/v1/schemas/ns.webhook.v1' });
  });

  it('serves each schema byte for byte as application/schema+json, without a credential', async () => {
    for (const name of names) {
      const res = await rt.app.inject({ method: 'GET', url: `/v1/schemas/${name}` });
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['content-type']).toBe('application/schema+json; charset=utf-8');
      expect(res.body).toBe(readFileSync(new URL(`${name}.schema.json`, SCHEMA_FOLDER), 'utf8'));
    }
  });

  it('answers 404 problem+json for a name it does not have, also a path-like one', async () => {
    for (const url of [
      '/v1/schemas/ns.nothing.v1',
      '/v1/schemas/..%2Fpackage.json',
      '/v1/schemas/ns.webhook.v1.schema.json',
    ]) {
      const res = await rt.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().code).toBe('not_found');
    }
  });
});

describe('aar-version', () => {
  it('is on every response: success, problem, unknown route, refused credential, public and authenticated', async () => {
    expect(SERVER_VERSION).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    const answers = [
      await rt.app.inject({ method: 'GET', url: '/healthz' }),
      await rt.app.inject({ method: 'GET', url: '/v1/schemas' }),
      await rt.app.inject({ method: 'GET', url: '/v1/entities', headers: auth() }),
      await rt.app.inject({ method: 'GET', url: '/v1/entities' }),
      await rt.app.inject({ method: 'GET', url: '/v1/no-such-route' }),
      await rt.app.inject({
        method: 'POST',
        url: '/v1/entities',
        headers: { ...auth(), 'content-type': 'application/json' },
        payload: '{',
      }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 401, 404, 400]);
    for (const a of answers) expect(a.headers['aar-version']).toBe(SERVER_VERSION);
  });
});
