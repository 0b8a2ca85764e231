// A plain Node 20 consumer of the packed SDK (no TypeScript, no tsx): run by npm-pack.test.ts from a project outside
// the repository that installed the two tarballs. It sets up a world, authorizes a signed purchase against the
// compiled service, verifies the map and the evidence pack offline (JWKS fetched once), and reads a typed error.
// Prints one JSON line with what it saw.
import { generateKeyPairSync } from 'node:crypto';
import {
  AarApiError,
  AarClient,
  createJwksSource,
  createRequestSigner,
  verifyDecisionMap,
  verifyEvidencePack,
} from '@aar/sdk';

const base = process.env.AAR_BASE;
const admin = new AarClient({ baseUrl: base, token: process.env.AAR_TOKEN, timeoutMs: 10_000 });

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const priv = privateKey.export({ format: 'jwk' });
const pub = publicKey.export({ format: 'jwk' });
const validUntil = new Date(Date.now() + 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

await admin.createEntity({ type: 'person', id: 'alice', display_name: 'Alice' });
await admin.createEntity({
  type: 'agent',
  id: 'shopper-1',
  display_name: 'Shopper',
  public_key_jwk: { kty: pub.kty, crv: pub.crv, x: pub.x },
});
await admin.createCardToken({
  id: 'tok-1',
  principal_entity_id: 'ns:entity:person:alice',
  network_token: 'ntk_alice_1',
});
await admin.createMerchant({ id: 'grocer-1', display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
await admin.createGrant({
  principal_entity_id: 'ns:entity:person:alice',
  actor_entity_id: 'ns:entity:agent:shopper-1',
  capability_id: 'ns:capability:payment_action:card_purchase',
  resource_id: 'ns:credential:card-token:tok-1',
  scope: {
    valid_until: validUntil,
    max_amount_per_purchase: { amount: 50, currency: 'EUR' },
    max_daily_amount: { amount: 100, currency: 'EUR' },
  },
});
const { token: runtimeToken } = await admin.createToken({ role: 'runtime' });

const agent = new AarClient({ baseUrl: base, token: runtimeToken });
const signer = createRequestSigner({
  keyId: 'ns:entity:agent:shopper-1',
  privateJwk: { kty: 'OKP', crv: 'Ed25519', x: priv.x, d: priv.d },
});
const decision = await agent.authorize(
  {
    actor_entity_id: 'ns:entity:agent:shopper-1',
    principal_entity_id: 'ns:entity:person:alice',
    subject: 'ns:capability:payment_action:card_purchase',
    resource: { merchant_id: 'grocer-1', amount: 12.5, currency: 'EUR' },
    scope: { instrument: 'ns:card_token:tok-1' },
  },
  { signer },
);

let jwksFetches = 0;
const countingFetch = (input, init) => {
  jwksFetches += 1;
  return fetch(input, init);
};
const jwks = createJwksSource(`${base}/.well-known/jwks.json`, { fetch: countingFetch });
const map = await verifyDecisionMap(decision.decision_map, jwks, { expected: decision });
const pack = await admin.getEvidencePack(decision.evidence_refs[0]);
const evidence = await verifyEvidencePack(pack, jwks);
const tampered = await verifyEvidencePack({ ...pack, now: '2001-01-01T00:00:00Z' }, jwks);

let error;
try {
  await admin.createMerchant({ id: 'bad', display_name: 'Bad', category: '5411', jurisdiction: 'Germany' });
} catch (caught) {
  error = caught;
}

console.log(
  JSON.stringify({
    decision: decision.decision,
    reason: decision.reason,
    mapValid: map.valid,
    evidenceValid: evidence.valid,
    replay: evidence.replay_decision,
    tamperedValid: tampered.valid,
    jwksFetches,
    errorIsTyped: error instanceof AarApiError,
    errorStatus: error?.status,
    errorCode: error?.code,
    errorPaths: error?.errors?.map((e) => e.path),
  }),
);
