/**
 * A Fastify app with the gateway and a few tiny routes, on an in-memory SQLite store: what the gateway tests drive
 * with app.inject(). The routes stand for real ones: an echo that writes a row, an admin-only read, a public read,
 * a handler that waits on a gate the test opens, and handlers that fail.
 */
import { WriteQueue } from '../../src/store/write-queue.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { AarError, canonicalJson } from '@aar/core';
import { defaultUuid, type AppContext } from '../../src/app-context.ts';
import type { Clock } from '../../src/clock.ts';
import { loadConfig, type AppConfig } from '../../src/config.ts';
import { createToken } from '../../src/services/tokens/manage-tokens.ts';
import { registerGateway, type GatewayOptions } from '../../src/http/gateway.ts';
import { loggerOptions } from '../../src/http/observability.ts';
import { openKeyRing } from '../../src/keys/key-ring.ts';
import { migrateStore, openStore } from '../../src/store/index.ts';

export const PRINCIPAL_ID = 'ns:entity:person:alice';
export const START = new Date('2026-11-20T12:00:00.000Z');

export interface SteppingClock extends Clock {
  advance(seconds: number): void;
}

export interface Gate {
  /** resolves when a request is waiting at the gate */
  reached: Promise<void>;
  open(): void;
}

export interface Harness {
  app: FastifyInstance;
  /** an encapsulated plugin scope inside the app, as route plugins get */
  pluginScope: FastifyInstance;
  ctx: AppContext;
  clock: SteppingClock;
  tokens: { admin: string; runtime: string; principal: string; auditor: string; revoked: string };
  /** log lines, when built with `captureLogs` */
  logs: string[];
  /** the next request to POST /test/slow waits until the gate is opened */
  newGate(): Gate;
  /** how many times the echo and failing handlers ran */
  calls: { echo: number; crash: number };
  eventCount(): Promise<number>;
  auth(token: string): { authorization: string };
  close(): Promise<void>;
}

export interface HarnessOptions {
  config?: Partial<AppConfig>;
  gateway?: GatewayOptions;
  captureLogs?: boolean;
}

export async function buildHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aar-gateway-'));
  const store = openStore({});
  await migrateStore(store);
  let now = START.getTime();
  const clock: SteppingClock = {
    now: () => new Date(now),
    advance: (seconds) => {
      now += seconds * 1000;
    },
  };
  const config = loadConfig({}, { dataDir, ...options.config });
  const keys = await openKeyRing({ dataDir, store, clock });
  const ctx: AppContext = {
    config,
    store,
    clock,
    keys,
    newUuid: defaultUuid,
    writer: new WriteQueue(store, clock, defaultUuid),
  };

  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const app = Fastify({
    logger: options.captureLogs ? { ...loggerOptions({ logLevel: 'info' }), stream } : false,
    bodyLimit: config.bodyLimit,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
  });
  await registerGateway(app, ctx, options.gateway);

  const calls = { echo: 0, crash: 0 };
  let gate: { wait: Promise<void>; arrived: () => void } | undefined;

  app.post(
    '/test/echo',
    {
      config: { roles: ['runtime'] },
      schema: {
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: { name: { type: 'string' }, n: { type: 'integer' }, nested: { type: 'object' } },
        },
      },
    },
    async (request, reply) => {
      calls.echo++;
      const eventId = `ns:event:${ctx.newUuid()}`;
      await store.db
        .insertInto('events')
        .values({
          event_id: eventId,
          event_type: 'test.echo',
          occurred_at: clock.now().toISOString(),
          subject_ref: 'test',
          envelope: canonicalJson(request.body),
        })
        .execute();
      return reply
        .code(201)
        .header('location', `/test/events/${eventId}`)
        .send({ event_id: eventId, body: request.body });
    },
  );
  app.post('/test/free', { config: { roles: ['runtime'] } }, async (request) => ({ body: request.body ?? null }));
  app.get('/test/admin', async () => ({ ok: true }));
  app.get('/test/public', { config: { public: true } }, async () => ({ ok: true }));
  app.get(
    '/test/query',
    {
      config: { roles: ['runtime', 'auditor'] },
      schema: { querystring: { type: 'object', properties: { limit: { type: 'string', pattern: '^[1-9][0-9]*$' } } } },
    },
    async (request) => ({ query: request.query }),
  );
  app.post('/test/slow', { config: { roles: ['runtime'] } }, async () => {
    const current = gate;
    if (current) {
      current.arrived();
      await current.wait;
    }
    return { done: true };
  });
  app.post('/test/crash', { config: { roles: ['runtime'] } }, async () => {
    calls.crash++;
    throw new Error('disk full at /var/lib/aar/secret.sqlite');
  });
  app.post('/test/conflict', { config: { roles: ['runtime'] } }, async () => {
    throw new AarError('conflict', 'the thing exists');
  });
  let pluginScope: FastifyInstance = app;
  await app.register(async (scope) => {
    pluginScope = scope;
  });
  await app.ready();

  const token = async (role: 'admin' | 'runtime' | 'principal' | 'auditor'): Promise<string> =>
    (await createToken(ctx, null, { role, principal_entity_id: role === 'principal' ? PRINCIPAL_ID : undefined }))
      .token;
  const iso = clock.now().toISOString();
  await store.db
    .insertInto('entities')
    .values({
      entity_id: PRINCIPAL_ID,
      type: 'person',
      display_name: 'Alice',
      public_key_jwk: null,
      key_thumbprint: null,
      state: 'active',
      created_at: iso,
      updated_at: iso,
    })
    .execute();
  const tokens = {
    admin: await token('admin'),
    runtime: await token('runtime'),
    principal: await token('principal'),
    auditor: await token('auditor'),
    revoked: await token('runtime'),
  };
  await store.db
    .updateTable('api_tokens')
    .set({ revoked_at: iso })
    .where(
      'token_id',
      '=',
      (await store.db.selectFrom('api_tokens').select('token_id').orderBy('seq', 'desc').executeTakeFirstOrThrow())
        .token_id,
    )
    .execute();

  return {
    app,
    pluginScope,
    ctx,
    clock,
    tokens,
    logs,
    calls,
    newGate() {
      let open!: () => void;
      let arrived!: () => void;
      const wait = new Promise<void>((resolve) => (open = resolve));
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      gate = { wait, arrived };
      return { reached, open };
    },
    async eventCount() {
      const row = await store.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('event_type', '=', 'test.echo')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    auth: (secret) => ({ authorization: `Bearer ${secret}` }),
    async close() {
      await app.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
