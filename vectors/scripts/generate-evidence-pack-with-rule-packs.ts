/**
 * `vectors/evidence-pack-with-rule-packs.json`: the evidence pack of a decision a rule pack decided, produced BY THE
 * SERVICE (the server's test runtime in-process: real SQLite store, real keys, the HTTP API through app.inject) with a
 * FIXED service key, a FIXED agent key and a fixed clock, with the JWKS that verifies it, so the Python and Go SDKs
 * test their offline verification and replay (rule packs in `snapshot.policy_set`, counters in `snapshot.facts`)
 * on a pack the service really made. The pack `e2e_velocity` (packages/server/test/rules-in-authorize/e2e-pack.ts)
 * is published and activated for alice; her first purchase at the grocer is stepped up (approved, the retry allowed),
 * two more are allowed, and the fourth is denied with `e2e_velocity.hourly_count_exceeded`: that one's pack is written.
 *
 *   node --import tsx vectors/scripts/generate-evidence-pack-with-rule-packs.ts
 *
 * Ids minted by the service (UUIDv7) and request nonces differ between runs, so the output is NOT byte-identical
 * from run to run: keys, instants, amounts, the pack and every decision are. The script refuses to write a pack core's
 * verifier (with replay) does not find valid.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyEvidencePack } from '../../packages/core/src/index.ts';
import { createRequestSigner } from '../../packages/sdk/src/index.ts';
import { writeKeyFile } from '../../packages/server/src/keys/key-files.ts';
import { E2E_PACK } from '../../packages/server/test/rules-in-authorize/e2e-pack.ts';
import { fixedClock } from '../../packages/server/test/support/fixed-clock.ts';
import { ADMIN_TOKEN, startTestRuntime } from '../../packages/server/test/support/test-runtime.ts';
import { keyFromSeed } from '../lib/seeded-ed25519.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const out = fileURLToPath(new URL('../evidence-pack-with-rule-packs.json', import.meta.url));
const NOW = '2026-04-15T10:00:00Z';
const NOW_SECONDS = 1776247200;
const ISSUER = 'http://127.0.0.1:8080';
const SERVICE_KEY_ID = 'ns:key:rule-pack-vectors-2026';
const ALICE = 'ns:entity:person:alice';

const service = keyFromSeed(0x52);
const agent = keyFromSeed(0x53);
const dataDir = mkdtempSync(join(tmpdir(), 'aar-rule-pack-vectors-'));
writeKeyFile(join(dataDir, 'keys'), {
  key_id: SERVICE_KEY_ID,
  private_jwk: service.jwk,
  valid_from: '2026-01-01T00:00:00Z',
  valid_until: null,
});
const rt = await startTestRuntime({ dataDir, clock: fixedClock(NOW) });

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
  await api('POST', '/v1/entities', { type: 'person', id: 'alice', display_name: 'Alice', time_zone: 'Europe/Berlin' });
  await api('POST', '/v1/entities', {
    type: 'agent',
    id: 'shopper-1',
    display_name: 'Shopper',
    public_key_jwk: agent.publicJwk,
  });
  await api('POST', '/v1/card-tokens', { id: 'tok-1', principal_entity_id: ALICE, network_token: 'ntk_alice_one' });
  await api('POST', '/v1/merchants', { id: 'grocer-1', display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
  await api('POST', '/v1/grants', {
    principal_entity_id: ALICE,
    actor_entity_id: 'ns:entity:agent:shopper-1',
    capability_id: 'ns:capability:payment_action:card_purchase',
    resource_id: 'ns:credential:card-token:tok-1',
    scope: {
      max_amount_per_purchase: { amount: 50, currency: 'EUR' },
      max_daily_amount: { amount: 300, currency: 'EUR' },
      valid_until: '2026-12-31T23:59:59Z',
    },
  });
  const principalToken: string = (await api('POST', '/v1/tokens', { role: 'principal', principal_entity_id: ALICE }))
    .token;
  await api('POST', '/v1/rule-packs', E2E_PACK);
  await api('POST', '/v1/rule-packs/e2e_velocity/versions/1.0.0/publish');
  await api('POST', '/v1/rule-activations', {
    pack_id: E2E_PACK.pack_id,
    version: E2E_PACK.version,
    target: { principal_entity_id: ALICE },
    mode: 'enforce',
  });

  const signer = createRequestSigner({
    keyId: 'ns:entity:agent:shopper-1',
    privateJwk: agent.jwk,
    now: () => NOW_SECONDS,
  });
  const authorize = async (amount: number, extra: Record<string, unknown> = {}) => {
    const text = JSON.stringify({
      actor_entity_id: 'ns:entity:agent:shopper-1',
      principal_entity_id: ALICE,
      subject: 'ns:capability:payment_action:card_purchase',
      resource: { merchant_id: 'grocer-1', amount, currency: 'EUR' },
      scope: { instrument: 'ns:card_token:tok-1' },
      ...extra,
    });
    const headers = await signer.sign({ method: 'POST', url: `${ISSUER}/v1/runtime/authorize`, body: text });
    return api('POST', '/v1/runtime/authorize', text, { ...headers });
  };
  const expectOutcome = (answer: Json, decision: string, reason: string) => {
    if (answer.decision !== decision || answer.reason !== reason) {
      throw new Error(`expected ${decision} ${reason}, got ${answer.decision} ${answer.reason}`);
    }
  };

  const first = await authorize(10);
  expectOutcome(first, 'require_approval', 'e2e_velocity.new_merchant');
  await api('POST', `/v1/approvals/${first.approval.approval_id}/decision`, { approve: true }, {
    authorization: `Bearer ${principalToken}`,
  });
  expectOutcome(await authorize(10, { policy_decision_id: first.policy_decision_id }), 'allow_with_constraints', 'approved_by_principal');
  for (let i = 0; i < 2; i++) {
    expectOutcome(await authorize(10), 'allow_with_constraints', 'scope_within_attenuated_authority');
  }
  const denied = await authorize(10);
  expectOutcome(denied, 'deny', 'e2e_velocity.hourly_count_exceeded');

  const pack = await api('GET', `/v1/evidence-packs/${denied.evidence_refs[0]}`);
  const jwks = await api('GET', '/.well-known/jwks.json');
  const verified = await verifyEvidencePack(pack, jwks);
  if (!verified.valid) throw new Error(`the service's own pack does not verify: ${JSON.stringify(verified)}`);

  const vector = {
    desc:
      'the evidence pack of a decision denied by a rule pack (e2e_velocity: hourly_count_exceeded, counters in ' +
      'snapshot.facts, the signed pack in snapshot.policy_set), with the JWKS that verifies it; replay must give ' +
      'the recorded decision',
    generator: 'vectors/scripts/generate-evidence-pack-with-rule-packs.ts',
    input: { pack, jwks },
    want: {
      valid: true,
      decision: 'deny',
      reason: 'e2e_velocity.hourly_count_exceeded',
      policy_packs: [E2E_PACK.pack_id],
    },
  };
  writeFileSync(out, `${JSON.stringify(vector, null, 2)}\n`);
  console.log(`wrote ${out}`);
} finally {
  await rt.close();
  rmSync(dataDir, { recursive: true, force: true });
}
