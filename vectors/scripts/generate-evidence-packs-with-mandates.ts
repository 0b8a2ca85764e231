/**
 * `vectors/evidence-packs-with-mandates.json`: evidence packs of purchases made under an AP2 mandate and an ACP
 * allowance, produced BY THE SERVICE (the server's test runtime in-process: real SQLite store, real keys, the HTTP API
 * through app.inject) with a FIXED service key, a FIXED agent key and a fixed clock, with the JWKS that verifies them,
 * so the Python and Go SDKs verify and replay, offline, packs the service really made (the `mandates` member, the
 * snapshot's `mandate` bindings and `budget_spent`, aar-decide/1.4.0).
 * alice's platform agent holds her grant; an AP2 open payment mandate (an issuer, her device and a buyer agent, keys
 * made here with jose through core's test chain builder) registered through POST /v1/mandates becomes a grant of the
 * buyer under it (200.00 a purchase, 500.00 a month). Then: 150.00 named by its mandate id (allowed); 199.00 and
 * 151.00 each presented as a closed mandate (allowed, the budget is spent exactly); 1.00 presented (denied
 * `budget_exceeded`); an ACP allowance's first purchase (allowed) and its second (denied `allowance_used`).
 *
 *   node --import tsx vectors/scripts/generate-evidence-packs-with-mandates.ts
 *
 * Ids, salts, ECDSA signatures and nonces differ between runs, so the output is NOT byte-identical from run to run:
 * keys of the service and the agent, instants, amounts and decisions are. The script refuses to write a pack core's
 * verifier (with replay) does not find valid.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyEvidencePack } from '../../packages/core/src/index.ts';
import { createRequestSigner } from '../../packages/sdk/src/index.ts';
import { writeKeyFile } from '../../packages/server/src/keys/key-files.ts';
import { fixedClock } from '../../packages/server/test/support/fixed-clock.ts';
import { ADMIN_TOKEN, startTestRuntime } from '../../packages/server/test/support/test-runtime.ts';
import {
  AUDIENCE,
  ISSUER as MANDATE_ISSUER,
  NOW as NOW_SECONDS,
  OPEN_PAYMENT_FRAME,
  chain,
  closedPaymentContent,
  issueHop,
  kbHop,
  openPaymentContent,
  parties,
} from '../../packages/core/test/mandates/support/build-chain.ts';
import { keyFromSeed } from '../lib/seeded-ed25519.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const out = fileURLToPath(new URL('../evidence-packs-with-mandates.json', import.meta.url));
const NOW = new Date(NOW_SECONDS * 1000).toISOString();
const SERVICE_URL = 'http://127.0.0.1:8080';
const SERVICE_KEY_ID = 'ns:key:mandate-vectors-2027';
const ALICE = 'ns:entity:person:alice';
const BUYER = 'ns:entity:agent:buyer-1';

const service = keyFromSeed(0x61);
const buyerKey = keyFromSeed(0x62);
const dataDir = mkdtempSync(join(tmpdir(), 'aar-mandate-vectors-'));
writeKeyFile(join(dataDir, 'keys'), {
  key_id: SERVICE_KEY_ID,
  private_jwk: service.jwk,
  valid_from: '2026-01-01T00:00:00Z',
  valid_until: null,
});
const rt = await startTestRuntime({ dataDir, clock: fixedClock(NOW), config: { mandateAudiences: [AUDIENCE] } });

async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await rt.app.inject({
    method: method as 'GET',
    url,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    payload: typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url} -> ${res.statusCode} ${res.body}`);
  return res.body ? JSON.parse(res.body) : undefined;
}

try {
  const shopper = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  await api('POST', '/v1/entities', { type: 'person', id: 'alice', display_name: 'Alice' });
  await api('POST', '/v1/entities', {
    type: 'agent',
    id: 'shopper-1',
    display_name: 'Platform agent',
    public_key_jwk: { kty: shopper.kty, crv: shopper.crv, x: shopper.x },
  });
  await api('POST', '/v1/entities', {
    type: 'agent',
    id: 'buyer-1',
    display_name: 'Buyer',
    public_key_jwk: buyerKey.publicJwk,
  });
  await api('POST', '/v1/card-tokens', { id: 'tok-1', principal_entity_id: ALICE, network_token: 'ntk_alice_one' });
  await api('POST', '/v1/merchants', { id: 'grocer-1', display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
  await api('POST', '/v1/merchants', { id: 'grocer-2', display_name: 'Grocer 2', category: '5411', jurisdiction: 'DE' });
  const grant = await api('POST', '/v1/grants', {
    principal_entity_id: ALICE,
    actor_entity_id: 'ns:entity:agent:shopper-1',
    capability_id: 'ns:capability:payment_action:card_purchase',
    resource_id: 'ns:credential:card-token:tok-1',
    scope: {
      max_amount_per_purchase: { amount: 300, currency: 'EUR' },
      max_daily_amount: { amount: 5000, currency: 'EUR' },
      may_delegate: true,
      max_delegation_depth: 1,
      valid_until: '2028-01-01T00:00:00Z',
    },
  });

  const p = await parties();
  await api('POST', '/v1/mandate-issuers', { issuer: MANDATE_ISSUER, format: 'ap2', jwks: { keys: [p.issuer.publicJwk] } });
  const open = await issueHop(
    p.issuer,
    { typ: 'dc+sd-jwt', kid: 'issuer-key-1' },
    { iss: MANDATE_ISSUER, iat: NOW_SECONDS - 100, delegate_payload: [openPaymentContent(p.agent.publicJwk)] },
    OPEN_PAYMENT_FRAME,
  );
  const mandate = await api('POST', '/v1/mandates', {
    format: 'ap2',
    presentation: open,
    parent_grant_id: grant.grant_id,
    actor_entity_id: BUYER,
    payees: { merchant_1: 'grocer-1', merchant_2: 'grocer-2' },
  });
  const close = async (minor: number) =>
    chain(
      open,
      await kbHop(p.agent, open, [
        closedPaymentContent({
          payment_amount: { amount: minor, currency: 'EUR' },
          payment_instrument: { id: 'ns:card_token:tok-1', type: 'card' },
        }),
      ]),
    );

  const signer = createRequestSigner({ keyId: BUYER, privateJwk: buyerKey.jwk, now: () => NOW_SECONDS });
  const authorize = async (amount: number, reference: Record<string, string>) => {
    const text = JSON.stringify({
      actor_entity_id: BUYER,
      principal_entity_id: ALICE,
      subject: 'ns:capability:payment_action:card_purchase',
      resource: { merchant_id: 'grocer-1', amount, currency: 'EUR' },
      scope: { instrument: 'ns:card_token:tok-1' },
      mandate: reference,
    });
    const headers = await signer.sign({ method: 'POST', url: `${SERVICE_URL}/v1/runtime/authorize`, body: text });
    return api('POST', '/v1/runtime/authorize', text, { ...headers });
  };
  const jwks = await api('GET', '/.well-known/jwks.json');
  const packs: Json[] = [];
  const keep = async (desc: string, answer: Json, decision: string, reason: string) => {
    if (answer.decision !== decision || answer.reason !== reason) {
      throw new Error(`${desc}: expected ${decision} ${reason}, got ${answer.decision} ${answer.reason}`);
    }
    const pack = await api('GET', `/v1/evidence-packs/${answer.evidence_refs[0]}`);
    const verified = await verifyEvidencePack(pack, jwks);
    const mandates = verified.checks.find((c) => c.check === 'mandates');
    if (!verified.valid || mandates?.valid !== true) {
      throw new Error(`${desc}: the service's own pack does not verify: ${JSON.stringify(verified.checks)}`);
    }
    packs.push({ desc, pack, want: { valid: true, decision, reason } });
  };

  await keep(
    'an AP2 mandate named by its id: 150.00 of its 500.00 a month',
    await authorize(150, { mandate_id: mandate.mandate_id }),
    'allow_with_constraints',
    'scope_within_attenuated_authority',
  );
  await keep(
    'a presented closed AP2 mandate (the pack carries it as `presented`): 199.00',
    await authorize(199, { presentation: await close(19900) }),
    'allow_with_constraints',
    'scope_within_attenuated_authority',
  );
  await authorize(151, { presentation: await close(15100) });
  await keep(
    'a presented closed AP2 mandate past the monthly budget (500.00 spent)',
    await authorize(1, { presentation: await close(100) }),
    'deny',
    'budget_exceeded',
  );
  const allowance = await api(
    'POST',
    '/v1/allowances',
    {
      format: 'acp',
      allowance: {
        reason: 'one_time',
        max_amount: 2000,
        currency: 'eur',
        checkout_session_id: 'csn_01HV3P3XYZ9ABC',
        merchant_id: 'grocer-1',
        expires_at: new Date((NOW_SECONDS + 1800) * 1000).toISOString(),
      },
      vaulted_token_id: 'vt_01J8Z3WXYZ9ABC',
      parent_grant_id: grant.grant_id,
      actor_entity_id: BUYER,
    },
    { 'idempotency-key': 'idem-mandate-vectors' },
  );
  await keep(
    'an ACP allowance, its one purchase',
    await authorize(20, { mandate_id: allowance.allowance_id }),
    'allow_with_constraints',
    'scope_within_attenuated_authority',
  );
  await keep(
    'the same ACP allowance, a second purchase',
    await authorize(5, { mandate_id: allowance.allowance_id }),
    'deny',
    'allowance_used',
  );

  const vector = {
    desc:
      'evidence packs of purchases under an AP2 mandate (by id, presented closed, past its budget) and an ACP ' +
      'allowance (used, then used again), made by the service, with the JWKS that verifies them; every pack is ' +
      'valid (its `mandates` check included) and replays to its recorded decision',
    generator: 'vectors/scripts/generate-evidence-packs-with-mandates.ts',
    jwks,
    packs,
  };
  writeFileSync(out, `${JSON.stringify(vector, null, 2)}\n`);
  console.log(`wrote ${out}: ${packs.length} packs`);
} finally {
  await rt.close();
  rmSync(dataDir, { recursive: true, force: true });
}
