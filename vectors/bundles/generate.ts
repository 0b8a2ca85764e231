/**
 * Proof bundle vectors (CONTRACT section 12), produced BY THE SERVICE: an in-process service (the server's test
 * runtime: real SQLite store, real keys, the HTTP API through app.inject) with a FIXED signing key, a FIXED agent key
 * and a fixed clock assembles bundles through POST /v1/bundles/assemble. Each failing vector damages one thing and,
 * where the damage sits under other signatures, re-signs them with the same service key (a link, the chain, the
 * bundle) and recomputes `references`, so that exactly one of the ten checks fails: the one `want.failing` names.
 *
 *   node --import tsx vectors/bundles/generate.ts        (rewrites vectors/bundles/*.json)
 *
 * Every `want` is written by hand from CONTRACT section 12; the generator refuses to write a vector core's
 * verifyBundle disagrees with. Ids minted by the service (UUIDv7) differ between runs, so the output is NOT
 * byte-identical from run to run: the committed files are the vectors.
 */
import { sign } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BUNDLE_CHECKS,
  buildBundleReferences,
  signDocument,
  verifyBundle,
  type BundlePartName,
  type DocumentSigner,
} from '../../packages/core/src/index.ts';
import { createRequestSigner } from '../../packages/sdk/src/index.ts';
import { writeKeyFile } from '../../packages/server/src/keys/key-files.ts';
import { keyFromSeed } from '../lib/seeded-ed25519.ts';
import { fixedClock } from '../../packages/server/test/support/fixed-clock.ts';
import { ADMIN_TOKEN, startTestRuntime } from '../../packages/server/test/support/test-runtime.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const here = fileURLToPath(new URL('.', import.meta.url));
const NOW = '2026-04-15T10:00:00Z';
const NOW_SECONDS = 1776247200;
const ISSUER = 'http://127.0.0.1:8080';
const ORIGIN = '127.0.0.1:8080/audit';
const SERVICE_KEY_ID = 'ns:key:bundle-vectors-2026';

const service = keyFromSeed(0x6b);
const agent = keyFromSeed(0x43);
const serviceSigner: DocumentSigner = {
  keyId: SERVICE_KEY_ID,
  sign: async (message) => new Uint8Array(sign(null, message, service.privateKey)),
};

const dataDir = mkdtempSync(join(tmpdir(), 'aar-bundle-vectors-'));
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

const clone = <T>(v: T): T => structuredClone(v);
const flipBase64Url = (text: string, at = 10) =>
  text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
const flipBase64 = (text: string) => {
  const bytes = Buffer.from(text, 'base64');
  bytes[0] = (bytes[0] as number) ^ 0x01;
  return bytes.toString('base64');
};

// --- the world, through the API: alice -> concierge (no registered key) -> shopper-1 ---------------------------
await api('POST', '/v1/entities', { type: 'person', id: 'alice', display_name: 'Alice' });
await api('POST', '/v1/entities', { type: 'agent', id: 'concierge', display_name: 'Concierge' });
await api('POST', '/v1/entities', { type: 'agent', id: 'shopper-1', display_name: 'Shopper', public_key_jwk: agent.publicJwk });
await api('POST', '/v1/card-tokens', { id: 'tok-1', principal_entity_id: 'ns:entity:person:alice', network_token: 'ntk_alice_one' });
await api('POST', '/v1/merchants', { id: 'grocer-1', display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
const root = await api('POST', '/v1/grants', {
  principal_entity_id: 'ns:entity:person:alice',
  actor_entity_id: 'ns:entity:agent:concierge',
  capability_id: 'ns:capability:payment_action:card_purchase',
  resource_id: 'ns:credential:card-token:tok-1',
  scope: {
    max_amount_per_purchase: { amount: 100, currency: 'EUR' },
    max_daily_amount: { amount: 300, currency: 'EUR' },
    requires_approval_above: { amount: 80, currency: 'EUR' },
    valid_until: '2026-12-31T23:59:59Z',
    may_delegate: true,
    max_delegation_depth: 1,
  },
});
await api('POST', '/v1/grants', {
  parent_grant_id: root.grant_id,
  actor_entity_id: 'ns:entity:agent:shopper-1',
  scope: {
    max_amount_per_purchase: { amount: 50, currency: 'EUR' },
    allowed_merchant_categories: ['5411'],
    valid_until: '2026-09-30T00:00:00Z',
  },
});
const signer = createRequestSigner({ keyId: 'ns:entity:agent:shopper-1', privateJwk: agent.jwk, now: () => NOW_SECONDS });
async function authorize(amount: number) {
  const text = JSON.stringify({
    actor_entity_id: 'ns:entity:agent:shopper-1',
    principal_entity_id: 'ns:entity:person:alice',
    subject: 'ns:capability:payment_action:card_purchase',
    resource: { merchant_id: 'grocer-1', amount, currency: 'EUR' },
    scope: { instrument: 'ns:card_token:tok-1' },
  });
  const headers = await signer.sign({ method: 'POST', url: `${ISSUER}/v1/runtime/authorize`, body: text });
  return api('POST', '/v1/runtime/authorize', text, { ...headers });
}
const allowed = await authorize(42.5);
const denied = await authorize(75);
if (allowed.decision !== 'allow_with_constraints' || denied.decision !== 'deny') {
  throw new Error(`unexpected decisions ${allowed.decision} ${denied.decision}`);
}
const jwks = await api('GET', '/.well-known/jwks.json');
const bundle = await api('POST', '/v1/bundles/assemble', {
  policy_decision_id: allowed.policy_decision_id,
  purpose: { purpose: 'chargeback_dispute', requested_by: 'ns:entity:person:alice', ticket: 'CASE-4711' },
});
const deniedBundle = await api('POST', '/v1/bundles/assemble', { policy_decision_id: denied.policy_decision_id });

// --- vectors --------------------------------------------------------------------------------------------------
interface Vector {
  file: string;
  desc: string;
  input: { bundle: Json; jwks: Json; origin: string };
  want: { valid: boolean; failing: string[] };
}
const vectors: Vector[] = [];

/** Recomputes `references` over the (damaged) parts and signs the bundle again with the service key. */
async function resealed(b: Json): Promise<Json> {
  const { signature: _signature, references: _references, ...rest } = b;
  const parts = Object.fromEntries(buildBundleReferences(b.bundle_id, b).map((r) => [r.name, b[r.name]])) as Record<
    BundlePartName,
    unknown
  >;
  return signDocument({ ...rest, references: buildBundleReferences(b.bundle_id, parts) }, serviceSigner);
}
const resign = (doc: Json) => signDocument(doc, serviceSigner);

function add(file: string, desc: string, damaged: Json, failing: string[], keys: Json = jwks) {
  vectors.push({ file, desc, input: { bundle: damaged, jwks: keys, origin: ORIGIN }, want: { valid: failing.length === 0, failing } });
}

add('valid-delegated-purchase.json', 'an allowed purchase through a two-link chain (root grant and its delegation)', bundle, []);
add('valid-denied-purchase.json', 'a purchase denied over the per-purchase limit: a deny is proved the same way', deniedBundle, []);
{
  const b = clone(bundle);
  b.signature.signature = flipBase64Url(b.signature.signature);
  add('fail-bundle-signature.json', 'one character of the bundle signature changed', b, ['bundle_signature']);
}
{
  const b = clone(bundle);
  b.references[3].sha256 = b.references[3].sha256.replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
  add('fail-references-digest.json', "a reference's sha256 changed, the bundle signed again", await resign(b), ['references_digest']);
}
{
  const b = clone(bundle);
  b.decision_map.signature.signature = flipBase64Url(b.decision_map.signature.signature);
  add('fail-decision-map-signature.json', 'the decision map signature changed, references and bundle sealed again', await resealed(b), ['decision_map_signature']);
}
{
  const b = clone(bundle);
  b.evidence_pack.signature.signature = flipBase64Url(b.evidence_pack.signature.signature);
  add('fail-evidence-pack-signature.json', 'the evidence pack signature changed, references and bundle sealed again', await resealed(b), ['evidence_pack_signature']);
}
{
  const b = clone(bundle);
  b.delegation_chain.links[1].signature.signature = flipBase64Url(b.delegation_chain.links[1].signature.signature);
  add('fail-delegation-chain-signatures.json', "the delegated link's service signature changed, bundle sealed again", await resealed(b), ['delegation_chain_signatures']);
}
{
  const b = clone(bundle);
  // the child link widened past its parent (150 EUR > 100 EUR), the link and the chain signed again by the service
  b.delegation_chain.links[1].scope.max_amount_per_purchase = { amount: 150, currency: 'EUR' };
  b.delegation_chain.links[1] = await resign(b.delegation_chain.links[1]);
  b.delegation_chain = await resign(b.delegation_chain);
  add('fail-delegation-attenuation.json', 'a link wider than its parent, signed by the service key: attenuation, not signatures, fails', await resealed(b), ['delegation_attenuation']);
}
{
  const b = clone(bundle);
  b.checkpoint.signature.signature = flipBase64Url(b.checkpoint.signature.signature);
  add('fail-checkpoint-signature.json', 'the checkpoint signature changed, references and bundle sealed again', await resealed(b), ['checkpoint_signature']);
}
{
  const b = clone(bundle);
  b.inclusion_proof.hashes[0] = flipBase64(b.inclusion_proof.hashes[0]);
  add('fail-audit-inclusion.json', 'one bit of one inclusion proof hash flipped, references and bundle sealed again', await resealed(b), ['audit_inclusion']);
}
{
  const b = clone(bundle);
  b.state_snapshot.snapshot.risk.actor = 'blocked';
  add('fail-replay-equal.json', 'the state snapshot says the agent was blocked: decide replays a deny, not the recorded allow', await resealed(b), ['replay_equal']);
}
{
  const b = clone(bundle);
  b.delegation_chain.states[1] = { ...b.delegation_chain.states[1], state: 'revoked', revoked_at: '2026-04-15T09:59:59.000Z' };
  b.delegation_chain = await resign(b.delegation_chain);
  add('fail-temporal-validity-revoked.json', 'the signed chain says the delegated grant was revoked one second before the decision', await resealed(b), ['temporal_validity']);
}
{
  const keys = clone(jwks);
  keys.keys[0].valid_until = '2026-04-15T09:00:00Z';
  add('fail-temporal-validity-retired-key.json', 'the JWKS says the service key was retired an hour before the decision it signed', bundle, ['temporal_validity'], keys);
}

for (const v of vectors) {
  const result = await verifyBundle(v.input.bundle, v.input.jwks, { origin: v.input.origin });
  const failing = result.checks.filter((c) => !c.ok).map((c) => c.name);
  if (result.checks.map((c) => c.name).join() !== BUNDLE_CHECKS.join() || failing.join() !== v.want.failing.join()) {
    throw new Error(`${v.file}: want ${JSON.stringify(v.want.failing)}, verifyBundle fails ${JSON.stringify(failing)}: ${JSON.stringify(result.checks.filter((c) => !c.ok))}`);
  }
}
for (const file of readdirSync(here)) if (file.endsWith('.json')) unlinkSync(join(here, file));
for (const v of vectors) {
  writeFileSync(join(here, v.file), `${JSON.stringify({ desc: v.desc, input: v.input, want: v.want }, null, 2)}\n`);
}
await rt.close();
rmSync(dataDir, { recursive: true, force: true });
console.log(`wrote ${vectors.length} vectors to vectors/bundles/`);
