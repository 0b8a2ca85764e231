/**
 * What POST /v1/mandates checks of a mandate's contents beyond core's verification, over HTTP: with AAR_AP2_SCHEMA_DIR
 * pointing at AP2's JSON Schemas (../shared/vectors/ap2, never copied here) a content the schema refuses (an open
 * payment mandate without its required `payment.reference`) is 422 `schema_invalid`, while the same mandate is
 * accepted by a deployment that set no schema directory; a card number disclosed in a mandate (a payee's name) is
 * 400 `pan_refused`, its path never holding the number, and nothing is stored either way.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedVectorPath } from '../../../../vectors/lib/shared-vectors.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { ap2Keys, openPaymentChain, paymentConstraints, type Ap2Keys } from './support/ap2-chain.ts';

const AP2 = sharedVectorPath('ap2');
if (AP2 === undefined) console.log('NOTICE: ../shared/vectors/ap2 absent: the AP2 schema checks are SKIPPED');
const ISSUER = 'https://wallet.issuer.test';

interface Deployment {
  rt: TestRuntime;
  w: DelegationWorld;
}

async function deployment(keys: Ap2Keys, ap2SchemaDir: string | undefined): Promise<Deployment> {
  const rt = await startTestRuntime({ config: { ap2SchemaDir } });
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  const w = await buildDelegationWorld(base, ADMIN_TOKEN);
  const reg = await w.call('POST', '/v1/mandate-issuers', {
    issuer: ISSUER,
    format: 'ap2',
    jwks: { keys: [keys.issuer.publicJwk] },
  });
  expect(reg.status).toBe(201);
  return { rt, w };
}

describe.skipIf(AP2 === undefined)('mandate contents at POST /v1/mandates', () => {
  let keys: Ap2Keys;
  let strict: Deployment;
  let lax: Deployment;

  beforeAll(async () => {
    keys = await ap2Keys();
    strict = await deployment(keys, join(AP2!, 'schemas', 'ap2'));
    lax = await deployment(keys, undefined);
  }, 60_000);
  afterAll(async () => {
    await strict?.rt.close();
    await lax?.rt.close();
  });

  const post = async (d: Deployment, constraints: unknown[]) => {
    const presentation = await openPaymentChain(keys, {
      issuer: ISSUER,
      audience: d.rt.ctx.config.mandateAudiences[0]!,
      nowSeconds: Math.floor(Date.now() / 1000),
      constraints,
    });
    return d.w.call('POST', '/v1/mandates', {
      format: 'ap2',
      presentation,
      parent_grant_id: d.w.root.grant_id,
      actor_entity_id: 'ns:entity:agent:shopper-1',
      payees: { merchant_1: 'grocer-1' },
    });
  };
  const stored = async (d: Deployment) =>
    Number(
      (
        await d.rt.ctx.store.db
          .selectFrom('mandates')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  // AP2's open payment schema requires a payment.reference among the constraints (`contains`)
  const withoutReference = () => paymentConstraints(5000, 'EUR', ['merchant_1']).slice(0, 2);

  it('refuses a content the AP2 schema refuses, naming it, when the schemas are configured', async () => {
    const res = await post(strict, withoutReference());
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('mandate_invalid');
    const schemaErrors = (res.body.errors as Array<{ code: string; path: string }>).filter(
      (e) => e.code === 'schema_invalid',
    );
    expect(schemaErrors.length).toBeGreaterThan(0);
    expect(schemaErrors[0]!.path).toMatch(/^\/presentation\/hops\/1\//);
    expect(await stored(strict)).toBe(0);
    // the same deployment accepts a content the schema allows
    const ok = await post(strict, paymentConstraints(5000, 'EUR', ['merchant_1']));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it('accepts the same content where no schema directory is configured (type checks only)', async () => {
    const res = await post(lax, withoutReference());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it('refuses a mandate that discloses a card number (pan_refused), never echoing it, storing nothing', async () => {
    const before = await stored(lax);
    const constraints = paymentConstraints(5000, 'EUR', ['merchant_1']) as Array<Record<string, unknown>>;
    const payees = constraints[1] as { allowed: Array<Record<string, unknown>> };
    payees.allowed[0]!.name = 'card 4242 4242 4242 4242';
    const res = await post(lax, constraints);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('pan_refused');
    expect(res.body.errors[0].path).toMatch(/^\/presentation\/hops\/1\/payload\//);
    expect(JSON.stringify(res.body)).not.toMatch(/4242\s?4242\s?4242\s?4242/);
    expect(await stored(lax)).toBe(before);
  });
});
