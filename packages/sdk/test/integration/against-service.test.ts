/**
 * The client against the real service (its sources, SQLite, a real socket): a world set up through the client, a
 * signed purchase, the map and the evidence pack verified offline with the JWKS fetched once, a sub-delegation
 * signed with signDelegationStatement and accepted by the service (and a tampered one refused), the chain verified
 * offline, the events feed, an inclusion proof against a checkpoint, and typed errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { startTestRuntime, ADMIN_TOKEN, type TestRuntime } from '../../../server/test/support/test-runtime.ts';
import {
  AarApiError,
  AarClient,
  createJwksSource,
  createRequestSigner,
  signDelegationStatement,
  verifyCheckpointInclusion,
  verifyDecisionMap,
  verifyDelegationChain,
  verifyEvidencePack,
  type Ed25519PrivateJwk,
} from '../../src/index.ts';

let runtime: TestRuntime;
let admin: AarClient;
let base: string;

async function agentKey(): Promise<{
  privateJwk: Ed25519PrivateJwk;
  publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
}> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  return {
    privateJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, d: jwk.d! },
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x! },
  };
}

const inOneYear = () => new Date(Date.now() + 365 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const concierge = await agentKey();
const shopper = await agentKey();
let rootGrantId: string;
let runtimeToken: string;

beforeAll(async () => {
  runtime = await startTestRuntime();
  await runtime.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(runtime.app.server.address() as AddressInfo).port}`;
  admin = new AarClient({ baseUrl: base, token: ADMIN_TOKEN });

  await admin.createEntity({ type: 'person', id: 'alice', display_name: 'Alice' });
  await admin.createEntity({
    type: 'agent',
    id: 'concierge',
    display_name: 'Concierge',
    public_key_jwk: concierge.publicJwk,
  });
  await admin.createEntity({
    type: 'agent',
    id: 'shopper',
    display_name: 'Shopper',
    public_key_jwk: shopper.publicJwk,
  });
  await admin.createCardToken({
    id: 'tok-1',
    principal_entity_id: 'ns:entity:person:alice',
    network_token: 'ntk_alice_1',
  });
  await admin.createMerchant({ id: 'grocer-1', display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
  const root = await admin.createGrant({
    principal_entity_id: 'ns:entity:person:alice',
    actor_entity_id: 'ns:entity:agent:concierge',
    capability_id: 'ns:capability:payment_action:card_purchase',
    resource_id: 'ns:credential:card-token:tok-1',
    scope: {
      max_amount_per_purchase: { amount: 100, currency: 'EUR' },
      max_daily_amount: { amount: 300, currency: 'EUR' },
      valid_until: inOneYear(),
      may_delegate: true,
      max_delegation_depth: 1,
    },
  });
  rootGrantId = root.grant_id;
  runtimeToken = (await admin.createToken({ role: 'runtime' })).token!; // shown once, on the first answer
});
afterAll(() => runtime.close());

describe('AarClient against the service', () => {
  it('delegates with the delegator’s signed consent, refuses a tampered one, and the chain verifies offline', async () => {
    const request = {
      parent_grant_id: rootGrantId,
      actor_entity_id: 'ns:agent:shopper',
      scope: { max_amount_per_purchase: { amount: 30, currency: 'EUR' } },
    };
    const options = { delegatorEntityId: 'ns:agent:concierge', privateKey: concierge.privateJwk };

    const tampered = await signDelegationStatement(request, options);
    tampered.scope.max_amount_per_purchase.amount = 90;
    const refused = await admin.createGrant(tampered).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AarApiError);
    expect(refused).toMatchObject({ status: 400, code: 'invalid_signature' });
    expect((refused as AarApiError).errors[0]?.path).toBe('/delegator_proof/signature');

    const child = await admin.createGrant(await signDelegationStatement(request, options));
    expect(child).toMatchObject({ parent_grant_id: rootGrantId, actor_entity_id: 'ns:entity:agent:shopper' });

    const jwks = admin.jwksSource();
    const chain = await admin.getGrantChain(child.grant_id);
    const verified = await verifyDelegationChain(chain, jwks);
    expect(verified.valid).toBe(true);
    expect(verified.links.map((l) => l.delegator_signed)).toEqual([false, true]);
    expect(jwks.fetchCount).toBe(1);
  });

  it('authorizes a signed purchase; the map and the evidence pack verify offline; the entry is in the log', async () => {
    const runtime = new AarClient({ baseUrl: base, token: runtimeToken });
    const signer = createRequestSigner({ keyId: 'ns:entity:agent:concierge', privateJwk: concierge.privateJwk });
    const body = {
      actor_entity_id: 'ns:entity:agent:concierge',
      principal_entity_id: 'ns:entity:person:alice',
      subject: 'ns:capability:payment_action:card_purchase',
      resource: { merchant_id: 'grocer-1', amount: 12.5, currency: 'EUR' },
      scope: { instrument: 'ns:card_token:tok-1' },
    };
    const decision = await runtime.authorize(body, { signer });
    expect(decision).toMatchObject({ decision: 'allow_with_constraints' });

    const jwks = admin.jwksSource();
    expect(await verifyDecisionMap(decision.decision_map, jwks, { expected: decision })).toMatchObject({ valid: true });
    // the key source named by the issuer URL or by the JWKS URL, as in the Python and Go SDKs: the same keys
    for (const named of [createJwksSource(base), createJwksSource(`${base}/.well-known/jwks.json`)]) {
      expect(await verifyDecisionMap(decision.decision_map, named)).toMatchObject({ valid: true });
    }
    expect(await verifyDecisionMap({ ...decision.decision_map, reason: 'approved_by_principal' }, jwks)).toMatchObject({
      valid: false,
      failure: 'signature_mismatch',
    });

    const pack = await admin.getEvidencePack(decision.evidence_refs[0]!);
    const result = await verifyEvidencePack(pack, jwks);
    expect(result.valid).toBe(true);
    expect(result.replay_decision).toMatchObject({ decision: 'allow_with_constraints', matches: true });

    const p = pack as { audit_entry: string; inclusion_proof: unknown; checkpoint: unknown };
    expect(
      await verifyCheckpointInclusion(
        { entry: p.audit_entry, proof: p.inclusion_proof, checkpoint: p.checkpoint },
        jwks,
      ),
    ).toMatchObject({
      valid: true,
    });
    expect(
      await verifyCheckpointInclusion(
        { entry: `${p.audit_entry} `, proof: p.inclusion_proof, checkpoint: p.checkpoint },
        jwks,
      ),
    ).toMatchObject({ valid: false, failure: 'leaf_hash_mismatch' });

    await expect(
      runtime.recordOutcome({ policy_decision_id: decision.policy_decision_id, outcome: 'executed' }),
    ).resolves.toMatchObject({
      outcome: 'executed',
    });
  });

  it('reads the events feed to its end and resumes from the cursor with nothing new', async () => {
    const feed = admin.events({ limit: 2 });
    const types: string[] = [];
    for await (const envelope of feed) types.push(envelope.event_type);
    expect(types).toContain('ns.purchase_authority.allowed');
    expect(feed.cursor).toBeDefined();
    const again = admin.events({ after: feed.cursor });
    const more = [];
    for await (const envelope of again) more.push(envelope);
    expect(more).toEqual([]);
  });

  it('answers a bad request and a missing resource with typed errors', async () => {
    const bad = await admin
      .createMerchant({ id: 'm-2', display_name: 'M', category: '5411', jurisdiction: 'Germany' })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(AarApiError);
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((bad as AarApiError).errors.some((e) => e.path.includes('jurisdiction'))).toBe(true);
    expect((bad as AarApiError).requestId).toBeTruthy();

    await expect(admin.getEntity('ns:entity:person:nobody')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    const anonymous = new AarClient({ baseUrl: base });
    await expect(anonymous.listEntities()).rejects.toMatchObject({ status: 401, code: 'unauthenticated' });
    await expect(anonymous.getHealth()).resolves.toBeDefined();
  });
});
