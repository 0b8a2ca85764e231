/**
 * Issue 26, Secrets: an API token (admin included) and a webhook `whsec_` secret (at creation and at rotation) are
 * shown once. With an `Idempotency-Key`, the stored idempotency row holds no secret (read from the table, decoded),
 * the replay answers the same status and resource without it and says `secret_omitted: true`, every such answer
 * carries `Cache-Control: no-store`, and no secret reaches the logs (info level, the production serializers).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app-context.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { ensureBootstrapToken } from '../../src/http/authenticate.ts';
import { loggerOptions } from '../../src/http/observability.ts';
import { openRuntime } from '../../src/runtime.ts';
import { ADMIN_TOKEN, auth } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let dataDir: string;
let ctx: AppContext;
let app: FastifyInstance;
const logs: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'aar-secrets-'));
  const config = loadConfig(
    { AAR_DATA_DIR: dataDir, AAR_BOOTSTRAP_TOKEN: ADMIN_TOKEN, AAR_ISSUER_URL: 'http://127.0.0.1:8080' },
    { webhookAllowInsecure: true, logLevel: 'trace' },
  );
  ctx = await openRuntime(config);
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  app = await buildApp(ctx, { logger: { ...loggerOptions({ logLevel: 'trace' }), stream } });
  await ensureBootstrapToken(ctx);
});
afterAll(async () => {
  await app?.close();
  await ctx?.store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function post(url: string, key: string, payload?: Json) {
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { ...auth(), 'idempotency-key': key },
    ...(payload === undefined ? {} : { payload }),
  });
  return res;
}

/** Every stored idempotency answer, decoded as the replay would send it. */
async function storedBodies(): Promise<string[]> {
  const rows = await ctx.store.db.selectFrom('idempotency_keys').select('response_body').execute();
  return rows.map((row) => Buffer.from(row.response_body ?? '', 'base64').toString('utf8'));
}

async function storedBody(key: string): Promise<Json> {
  const row = await ctx.store.db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('idem_key', '=', key)
    .executeTakeFirstOrThrow();
  return JSON.parse(Buffer.from(row.response_body ?? '', 'base64').toString('utf8')) as Json;
}

/** First answer with the secret, replay without it, both no-store; the row and the logs never hold it. */
async function expectShownOnce(url: string, key: string, member: string, payload?: Json): Promise<Json> {
  const first = await post(url, key, payload);
  expect(first.statusCode, first.body).toBeLessThan(300);
  const created = first.json<Json>();
  const secret = created[member] as string;
  expect(typeof secret).toBe('string');
  expect(created.secret_omitted).toBeUndefined();
  expect(first.headers['cache-control']).toBe('no-store');

  const stored = await storedBody(key);
  expect(stored[member]).toBeUndefined();
  expect(stored.secret_omitted).toBe(true);
  for (const body of await storedBodies()) expect(body).not.toContain(secret);

  const replay = await post(url, key, payload);
  expect(replay.statusCode).toBe(first.statusCode);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.headers['cache-control']).toBe('no-store');
  expect(replay.body).not.toContain(secret);
  const { [member]: _shown, ...resource } = created;
  expect(replay.json()).toEqual({ ...resource, secret_omitted: true });

  expect(logs.length).toBeGreaterThan(0);
  expect(logs.join('\n')).not.toContain(secret);
  return created;
}

describe('a secret is shown once, whatever Idempotency-Key replays', () => {
  it('an admin API token', async () => {
    const created = await expectShownOnce('/v1/tokens', 'token-admin-1', 'token', { role: 'admin', label: 'ops' });
    // the secret works, and only its hash is kept
    const me = await app.inject({ method: 'GET', url: '/v1/tokens', headers: auth(created.token as string) });
    expect(me.statusCode).toBe(200);
    const row = await ctx.store.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('token_id', '=', created.token_id as string)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(created.token as string);
  });

  it('a runtime API token', async () => {
    await expectShownOnce('/v1/tokens', 'token-runtime-1', 'token', { role: 'runtime' });
  });

  it('a shared_secret webhook endpoint at creation, then its rotated secret', async () => {
    const created = await expectShownOnce('/v1/webhook-endpoints', 'endpoint-1', 'secret', {
      url: 'http://127.0.0.1:9/hook',
      profile: 'shared_secret',
    });
    expect(created.secret).toMatch(/^whsec_/);
    const id = encodeURIComponent(created.endpoint_id as string);
    const rotated = await expectShownOnce(`/v1/webhook-endpoints/${id}/rotate-secret`, 'rotate-1', 'secret');
    expect(rotated.secret).not.toBe(created.secret);
  });

  it('an endpoint without a secret is stored and replayed as it was answered', async () => {
    const first = await post('/v1/webhook-endpoints', 'endpoint-asym', {
      url: 'http://127.0.0.1:9/asym',
      profile: 'asymmetric',
    });
    expect(first.statusCode).toBe(201);
    expect(first.headers['cache-control']).toBe('no-store');
    const replay = await post('/v1/webhook-endpoints', 'endpoint-asym', {
      url: 'http://127.0.0.1:9/asym',
      profile: 'asymmetric',
    });
    expect(replay.rawPayload.equals(first.rawPayload)).toBe(true);
  });

  it('routes without a secret send no Cache-Control: no-store', async () => {
    const res = await post('/v1/entities', 'entity-1', { type: 'person', id: 'cc-alice', display_name: 'Alice' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBeUndefined();
  });

  it('the OpenAPI document says the secret may be absent and what secret_omitted means', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<Json>();
    const created = doc.paths['/v1/tokens'].post.responses['201'].content['application/json'].schema;
    expect(created.required).not.toContain('token');
    expect(created.properties.secret_omitted.description).toMatch(/replay/);
  });
});
