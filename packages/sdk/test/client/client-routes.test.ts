/**
 * Every operation of the OpenAPI document has a client method, and each method sends the route the document names:
 * method, path (ids as one encoded segment), query, body, and the headers every call carries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AarClient, OPERATIONS, type OperationSpec } from '../../src/index.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/recording-server.ts';

const TOKEN = 'aar_secret_token_for_tests';
let server: RecordingServer;
let client: AarClient;

beforeAll(async () => {
  server = await startRecordingServer();
  client = new AarClient({ baseUrl: server.base, token: TOKEN, retry: { maxAttempts: 1 } });
});
afterAll(() => server.close());

const ID = 'ns:entity:agent:shopper 1/x';

/** The arguments a method takes, in its order: path parameters, then the body, then the query. */
function argumentsFor(spec: OperationSpec): unknown[] {
  const args: unknown[] = spec.pathParams.map(() => ID);
  if (spec.body !== 'none') args.push({ probe: 'body', amount: 12.5 });
  if (spec.queryParams.length > 0) args.push(Object.fromEntries(spec.queryParams.map((q) => [q, `${q}-v`])));
  return args;
}

type Method = (...args: unknown[]) => Promise<unknown>;

describe('AarClient routes', () => {
  const names = Object.keys(OPERATIONS) as (keyof typeof OPERATIONS)[];

  it('covers the whole OpenAPI document, webhooks, approvals, references and audit included', () => {
    for (const required of [
      'createEntity',
      'authorize',
      'recordOutcome',
      'revokeGrant',
      'getGrantChain',
      'listEvents',
      'listEventTypes',
      'createWebhookEndpoint',
      'rotateWebhookSecret',
      'replayWebhookDeliveries',
      'listApprovals',
      'listCapabilities',
      'listStates',
      'listPolicies',
      'verifyAudit',
      'getInclusionProof',
    ]) {
      expect(names).toContain(required);
    }
    const missing = names.filter((name) => typeof (client as unknown as Record<string, unknown>)[name] !== 'function');
    expect(missing).toEqual([]);
  });

  it.each(names)('%s sends its method, path, query and body', async (name) => {
    const spec = OPERATIONS[name];
    server.respond(
      spec.responseType === 'text'
        ? (_req, res) => {
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.end('# metrics');
          }
        : json(200, { ok: name }),
    );
    const method = (client as unknown as Record<string, Method>)[name]!.bind(client);
    const result = await method(...argumentsFor(spec));
    expect(result).toEqual(spec.responseType === 'text' ? '# metrics' : { ok: name });

    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe(spec.method);
    const url = new URL(req.url, server.base);
    const expectedPath = spec.path.replace(/\{[^}]+\}/g, encodeURIComponent(ID));
    expect(url.pathname).toBe(expectedPath);
    for (const q of spec.queryParams) expect(url.searchParams.get(q)).toBe(`${q}-v`);
    if (spec.queryParams.length === 0) expect(url.search).toBe('');
    if (spec.body === 'none') {
      expect(req.body).toBe('');
      expect(req.headers['content-type']).toBeUndefined();
    } else {
      expect(JSON.parse(req.body)).toEqual({ probe: 'body', amount: 12.5 });
      expect(req.headers['content-type']).toBe('application/json');
    }
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['user-agent']).toMatch(/^aar-sdk-typescript\//);
    if (spec.method === 'POST') {
      expect(req.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    } else {
      expect(req.headers['idempotency-key']).toBeUndefined();
    }
  });

  it('request() reaches any path, with a query and a body', async () => {
    server.respond(json(201, { created: true }));
    const raw = await client.requestRaw('POST', '/v1/anything', {
      query: { a: 1, b: true, c: undefined, d: ['x', 'y'] },
      body: { n: 1 },
      idempotencyKey: 'my-key-1',
    });
    expect(raw).toMatchObject({ status: 201, body: { created: true }, attempts: 1, idempotencyKey: 'my-key-1' });
    const req = server.requests[0]!;
    expect(req.url).toBe('/v1/anything?a=1&b=true&d=x&d=y');
    expect(req.headers['idempotency-key']).toBe('my-key-1');
    expect(await client.request('GET', '/healthz')).toEqual({ created: true });
  });

  it('gives a new Idempotency-Key to each logical POST, and the caller’s own when given', async () => {
    server.respond(json(200, {}));
    await client.suspendEntity('ns:entity:agent:a');
    await client.suspendEntity('ns:entity:agent:a');
    await client.createEntity({ type: 'agent', display_name: 'A' }, { idempotencyKey: 'create-agent-a' });
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(3);
    expect(keys[2]).toBe('create-agent-a');
  });

  it('refuses a base URL carrying credentials, and sends no Authorization without a token', async () => {
    expect(() => new AarClient({ baseUrl: 'http://user:pw@127.0.0.1:1' })).toThrow(/credentials/);
    server.respond(json(200, { status: 'ok' }));
    await new AarClient({ baseUrl: server.base }).getHealth();
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('never follows a redirect (the token must not travel to another origin)', async () => {
    server.respond((_req, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/steal' });
      res.end();
    });
    await expect(client.getEntity('ns:entity:person:alice')).rejects.toMatchObject({
      name: 'AarApiError',
      status: 302,
      code: 'http_302',
    });
    expect(server.requests).toHaveLength(1);
  });
});
