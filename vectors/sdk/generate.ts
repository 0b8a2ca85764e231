/**
 * Golden vectors for the SDKs (CONTRACT section 18), produced BY THE SERVICE: an in-process service (the server's
 * test runtime: real SQLite store, real keys, the HTTP API through app.inject) with a FIXED signing key, a FIXED
 * agent key and a fixed clock is driven through the routes a user calls; the answers are written as they came, and
 * each tampered vector changes one class of byte of a real answer. Webhook deliveries are signed by core's
 * signWebhookDelivery (the function the delivery worker calls) with the same service key over an event envelope the
 * service served from GET /v1/events.
 *
 *   node --import tsx vectors/sdk/generate.ts        (rewrites vectors/sdk/*.json except differential.json)
 *
 * Every `want` below is written by hand from CONTRACT sections 4, 5, 8 and 9 (which check must fail, with which
 * code); the generator refuses to write anything core's verifiers disagree with. Ids minted by the service
 * (UUIDv7) and the audit log's origin differ between runs, so the output is NOT byte-identical from run to run:
 * there is no drift check, the committed files are the vectors.
 */
import { createPublicKey } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  canonicalJson,
  signWebhookDelivery,
  verifyDelegationChain,
  verifyDocument,
  verifyEvidencePack,
  verifyInclusionProofJson,
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
const SERVICE_KEY_ID = 'ns:key:sdk-vectors-2026';

const service = keyFromSeed(0x5a);
const agent = keyFromSeed(0x42);
const serviceSigner: DocumentSigner = {
  keyId: SERVICE_KEY_ID,
  async sign(message) {
    const { sign } = await import('node:crypto');
    return new Uint8Array(sign(null, message, service.privateKey));
  },
};

const dataDir = mkdtempSync(join(tmpdir(), 'aar-sdk-vectors-'));
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
  const parsed = res.body ? JSON.parse(res.body) : undefined;
  if (res.statusCode >= 300) throw new Error(`${method} ${url} -> ${res.statusCode} ${res.body}`);
  return parsed;
}

const clone = <T>(v: T): T => structuredClone(v);
const flipBase64Url = (text: string, at = 10) =>
  text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
const flipBase64 = (text: string) => {
  const bytes = Buffer.from(text, 'base64');
  bytes[0] = (bytes[0] as number) ^ 0x01;
  return bytes.toString('base64');
};

// --- the world, through the API ----------------------------------------------------------------------------------
await api('POST', '/v1/entities', { type: 'person', id: 'alice', display_name: 'Alice' });
await api('POST', '/v1/entities', { type: 'agent', id: 'concierge', display_name: 'Concierge' });
await api('POST', '/v1/entities', {
  type: 'agent',
  id: 'shopper-1',
  display_name: 'Shopper',
  public_key_jwk: agent.publicJwk,
});
await api('POST', '/v1/card-tokens', {
  id: 'tok-1',
  principal_entity_id: 'ns:entity:person:alice',
  network_token: 'ntk_alice_one',
});
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
const child = await api('POST', '/v1/grants', {
  parent_grant_id: root.grant_id,
  actor_entity_id: 'ns:entity:agent:shopper-1',
  scope: {
    max_amount_per_purchase: { amount: 50, currency: 'EUR' },
    max_daily_amount: { amount: 100, currency: 'EUR' },
    allowed_merchant_categories: ['5411'],
    valid_until: '2026-09-30T00:00:00Z',
  },
});
const signer = createRequestSigner({ keyId: 'ns:entity:agent:shopper-1', privateJwk: agent.jwk, now: () => NOW_SECONDS });
async function authorize(body: Json) {
  const text = JSON.stringify(body);
  const headers = await signer.sign({ method: 'POST', url: `${ISSUER}/v1/runtime/authorize`, body: text });
  return api('POST', '/v1/runtime/authorize', text, { ...headers });
}
const purchase = (amount: number, merchant = 'grocer-1') => ({
  actor_entity_id: 'ns:entity:agent:shopper-1',
  principal_entity_id: 'ns:entity:person:alice',
  subject: 'ns:capability:payment_action:card_purchase',
  resource: { merchant_id: merchant, amount, currency: 'EUR' },
  scope: { instrument: 'ns:card_token:tok-1' },
});
const allowed = await authorize(purchase(42.5));
const denied = await authorize(purchase(75));
if (allowed.decision !== 'allow_with_constraints' || denied.decision !== 'deny') {
  throw new Error(`unexpected decisions ${allowed.decision} ${denied.decision}`);
}
const jwks = await api('GET', '/.well-known/jwks.json');
const packAllowed = await api('GET', `/v1/evidence-packs/${encodeURIComponent(allowed.evidence_refs[0])}`);
const packDenied = await api('GET', `/v1/evidence-packs/${encodeURIComponent(denied.evidence_refs[0])}`);
const chain = await api('GET', `/v1/grants/${encodeURIComponent(child.grant_id)}/chain`);
const checkpoint = await api('POST', '/v1/audit/checkpoint');
const events = await api('GET', '/v1/events?limit=5');

// --- vectors ------------------------------------------------------------------------------------------------------
interface Want {
  valid: boolean;
  code?: string;
  /** evidence packs: every check that must fail, with its code */
  failures?: Record<string, string>;
}
interface Vector {
  file: string;
  desc: string;
  kind: 'decision_map' | 'evidence_pack' | 'delegation_chain' | 'checkpoint_inclusion' | 'webhook';
  input: Json;
  want: Want;
}
const vectors: Vector[] = [];
const add = (v: Vector) => vectors.push(v);

// decision maps (CONTRACT section 4)
const map = allowed.decision_map;
add({ file: 'decision-map-valid.json', desc: 'the signed decision map of an allowed purchase', kind: 'decision_map', input: { document: map }, want: { valid: true } });
add({ file: 'decision-map-deny-valid.json', desc: 'the signed decision map of a denied purchase', kind: 'decision_map', input: { document: denied.decision_map }, want: { valid: true } });
{
  const m = clone(map);
  m.reason = 'approved_by_principal';
  add({ file: 'decision-map-changed-reason.json', desc: 'the reason changed after signing', kind: 'decision_map', input: { document: m }, want: { valid: false, code: 'signature_mismatch' } });
}
{
  const m = clone(map);
  m.decision = 'deny';
  add({ file: 'decision-map-changed-decision.json', desc: 'the decision changed after signing', kind: 'decision_map', input: { document: m }, want: { valid: false, code: 'signature_mismatch' } });
}
{
  const m = clone(map);
  m.signature.signature = flipBase64Url(m.signature.signature);
  add({ file: 'decision-map-flipped-signature.json', desc: 'one signature character changed', kind: 'decision_map', input: { document: m }, want: { valid: false, code: 'signature_mismatch' } });
}
{
  const m = clone(map);
  m.signature.key_id = 'ns:key:not-published';
  add({ file: 'decision-map-wrong-key-id.json', desc: 'a key id the JWKS does not list', kind: 'decision_map', input: { document: m }, want: { valid: false, code: 'unknown_key' } });
}
{
  const m = clone(map);
  m.signature.algorithm = 'HS256';
  add({ file: 'decision-map-alg-hs256.json', desc: 'algorithm confusion: HS256 named', kind: 'decision_map', input: { document: m }, want: { valid: false, code: 'unsupported_algorithm' } });
}
{
  const m = clone(map);
  m.signature.signature = m.signature.signature.slice(0, -2);
  add({ file: 'decision-map-short-signature.json', desc: 'a truncated signature (not 64 bytes)', kind: 'decision_map', input: { document: m }, want: { valid: false, code: 'malformed_signature' } });
}

// evidence packs (CONTRACT sections 4 and 8)
const sig = { pack_signature: 'signature_mismatch' };
add({ file: 'evidence-pack-allowed-valid.json', desc: 'the evidence pack of an allowed purchase', kind: 'evidence_pack', input: { pack: packAllowed }, want: { valid: true } });
add({ file: 'evidence-pack-denied-valid.json', desc: 'the evidence pack of a denied purchase', kind: 'evidence_pack', input: { pack: packDenied }, want: { valid: true } });
const packCase = (file: string, desc: string, mutate: (p: Json) => void, failures: Record<string, string>) => {
  const p = clone(packAllowed);
  mutate(p);
  const first = Object.values(failures)[0] as string;
  add({ file, desc, kind: 'evidence_pack', input: { pack: p }, want: { valid: false, code: first, failures } });
};
packCase('evidence-pack-flipped-signature.json', 'one byte of the pack signature flipped', (p) => (p.signature.signature = flipBase64Url(p.signature.signature)), { ...sig });
packCase('evidence-pack-wrong-key-id.json', 'the pack names a key the JWKS does not list', (p) => (p.signature.key_id = 'ns:key:not-published'), { pack_signature: 'unknown_key' });
packCase('evidence-pack-changed-decision.json', 'the recorded decision changed to deny', (p) => {
  p.decision.decision = 'deny';
  p.decision.reason = 'merchant_unknown';
}, { ...sig, bindings: 'decision_mismatch', record_digest: 'digest_mismatch', replay: 'replay_mismatch' });
packCase('evidence-pack-changed-snapshot-amount.json', "the snapshot's per-purchase limit lowered below the amount", (p) => {
  const grants = p.snapshot.grants;
  grants[grants.length - 1].scope.max_amount_per_purchase.minor = 1000;
}, { ...sig, record_digest: 'digest_mismatch', replay: 'replay_mismatch' });
packCase('evidence-pack-changed-request-amount.json', 'the request amount raised above the limit', (p) => (p.request.amount.minor = 6000), { ...sig, record_digest: 'digest_mismatch', replay: 'replay_mismatch' });
packCase('evidence-pack-changed-map-reason.json', "the decision map's reason changed", (p) => (p.decision_map.reason = 'approved_by_principal'), { ...sig, decision_map_signature: 'signature_mismatch', bindings: 'decision_mismatch', record_digest: 'digest_mismatch' });
packCase('evidence-pack-changed-inclusion-hash.json', 'one hash of the inclusion proof changed', (p) => (p.inclusion_proof.hashes[0] = flipBase64(p.inclusion_proof.hashes[0])), { ...sig, inclusion_proof: 'root_mismatch' });
packCase('evidence-pack-changed-audit-entry.json', 'the audit entry bytes edited', (p) => (p.audit_entry = p.audit_entry.replace('"kind":"', '"kind":"x')), { ...sig, audit_entry: 'leaf_hash_mismatch' });
packCase('evidence-pack-changed-checkpoint-root.json', "the checkpoint's root hash changed", (p) => (p.checkpoint.root_hash = flipBase64(p.checkpoint.root_hash)), { ...sig, inclusion_proof: 'root_mismatch', checkpoint: 'signature_mismatch' });

// delegation chain (CONTRACT section 5)
add({ file: 'delegation-chain-valid.json', desc: 'the chain root -> child as GET /v1/grants/{id}/chain serves it', kind: 'delegation_chain', input: { chain, now: NOW }, want: { valid: true } });
{
  const c = clone(chain);
  c.links[1].scope.max_amount_per_purchase.amount = 500;
  add({ file: 'delegation-chain-tampered-link.json', desc: "the child link's per-purchase limit widened after signing", kind: 'delegation_chain', input: { chain: c, now: NOW }, want: { valid: false, code: 'document_signature_invalid' } });
}
add({ file: 'delegation-chain-expired.json', desc: 'the same chain judged after the child expired', kind: 'delegation_chain', input: { chain, now: '2026-10-01T00:00:00Z' }, want: { valid: false, code: 'expired' } });

// checkpoint and inclusion proofs (CONTRACT section 8)
for (const index of [0, Math.floor(checkpoint.size / 2), checkpoint.size - 1]) {
  const entry = await api('GET', `/v1/audit/entries/${index}`);
  const proof = await api('GET', `/v1/audit/proofs/inclusion?index=${index}&size=${checkpoint.size}`);
  add({ file: `checkpoint-inclusion-${index}-valid.json`, desc: `entry ${index} is in the signed checkpoint`, kind: 'checkpoint_inclusion', input: { checkpoint, entry: entry.entry ?? entry.text ?? entry, proof }, want: { valid: true } });
  if (index === Math.floor(checkpoint.size / 2)) {
    const p = clone(proof);
    p.hashes[p.hashes.length - 1] = flipBase64(p.hashes[p.hashes.length - 1]);
    add({ file: `checkpoint-inclusion-${index}-changed-hash.json`, desc: 'one proof hash changed', kind: 'checkpoint_inclusion', input: { checkpoint, entry: entry.entry ?? entry.text ?? entry, proof: p }, want: { valid: false, code: 'root_mismatch' } });
    const q = clone(proof);
    q.hashes.pop();
    add({ file: `checkpoint-inclusion-${index}-short-proof.json`, desc: 'a proof hash missing', kind: 'checkpoint_inclusion', input: { checkpoint, entry: entry.entry ?? entry.text ?? entry, proof: q }, want: { valid: false, code: 'wrong_proof_size' } });
    const cp = clone(checkpoint);
    cp.size += 1;
    add({ file: 'checkpoint-changed-size.json', desc: 'the checkpoint size changed after signing', kind: 'checkpoint_inclusion', input: { checkpoint: cp, entry: entry.entry ?? entry.text ?? entry, proof }, want: { valid: false, code: 'signature_mismatch' } });
    add({ file: 'checkpoint-inclusion-other-entry.json', desc: 'the proof of this index with another entry', kind: 'checkpoint_inclusion', input: { checkpoint, entry: `${(entry.entry ?? entry.text ?? entry) as string} `, proof }, want: { valid: false, code: 'leaf_hash_mismatch' } });
  }
}

// webhook deliveries in the three profiles (CONTRACT section 9)
const SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
const { signature: _served, ...envelope } = events.items[0];
for (const profile of ['shared_secret', 'asymmetric', 'cose'] as const) {
  const d = await signWebhookDelivery({
    profile,
    webhookId: envelope.event_id,
    timestamp: NOW_SECONDS,
    envelope,
    ...(profile === 'shared_secret' ? { secrets: [SECRET] } : {}),
    signer: serviceSigner,
  });
  const base = {
    profile,
    headers: d.headers,
    content_type: d.contentType,
    body_base64: Buffer.from(d.body).toString('base64'),
    now: NOW_SECONDS + 10,
    ...(profile === 'shared_secret' ? { secrets: [SECRET] } : {}),
  };
  add({ file: `webhook-${profile}-valid.json`, desc: `a ${profile} delivery`, kind: 'webhook', input: base, want: { valid: true } });
  const body = Buffer.from(d.body);
  body[body.length - 3] = (body[body.length - 3] as number) ^ 0x01;
  add({ file: `webhook-${profile}-changed-body.json`, desc: 'one body byte changed', kind: 'webhook', input: { ...base, body_base64: body.toString('base64') }, want: { valid: false, code: 'signature_invalid' } });
  add({ file: `webhook-${profile}-stale.json`, desc: 'authentic but 301 s old', kind: 'webhook', input: { ...base, now: NOW_SECONDS + 301 }, want: { valid: false, code: 'timestamp_stale' } });
  add({ file: `webhook-${profile}-other-timestamp.json`, desc: 'the timestamp header changed', kind: 'webhook', input: { ...base, headers: { ...d.headers, 'webhook-timestamp': String(NOW_SECONDS + 1) } }, want: { valid: false, code: 'signature_invalid' } });
}
{
  const d = await signWebhookDelivery({ profile: 'shared_secret', webhookId: envelope.event_id, timestamp: NOW_SECONDS, envelope, secrets: [SECRET], signer: serviceSigner });
  add({ file: 'webhook-shared_secret-wrong-secret.json', desc: 'verified with another secret', kind: 'webhook', input: { profile: 'shared_secret', headers: d.headers, content_type: d.contentType, body_base64: Buffer.from(d.body).toString('base64'), now: NOW_SECONDS, secrets: ['whsec_' + Buffer.alloc(32, 8).toString('base64')] }, want: { valid: false, code: 'signature_invalid' } });
}

// --- check every want against core, then write -------------------------------------------------------------------
const { verifyWebhookDelivery } = await import('../../packages/core/src/index.ts');
async function judge(v: Vector): Promise<{ valid: boolean; code?: string; failures?: Record<string, string> }> {
  switch (v.kind) {
    case 'decision_map': {
      const r = await verifyDocument(v.input.document, jwks);
      return { valid: r.valid, ...(r.failure ? { code: r.failure } : {}) };
    }
    case 'evidence_pack': {
      const r = await verifyEvidencePack(v.input.pack, jwks);
      const failed = r.checks.filter((c) => !c.valid);
      return { valid: r.valid, code: failed[0]?.failure, failures: Object.fromEntries(failed.map((c) => [c.check, c.failure as string])) };
    }
    case 'delegation_chain': {
      const r = await verifyDelegationChain(v.input.chain, jwks, v.input.now);
      return { valid: r.valid, code: r.problems[0]?.code };
    }
    case 'checkpoint_inclusion': {
      const doc = await verifyDocument(v.input.checkpoint, jwks);
      if (!doc.valid) return { valid: false, code: doc.failure };
      const { leafHash } = await import('../../packages/core/src/merkle/hashing.ts');
      const leaf = Buffer.from(leafHash(new TextEncoder().encode(v.input.entry))).toString('base64');
      if (leaf !== v.input.proof.leaf_hash) return { valid: false, code: 'leaf_hash_mismatch' };
      const r = verifyInclusionProofJson(v.input.proof, v.input.checkpoint.root_hash);
      return r.valid ? { valid: true } : { valid: false, code: r.failure };
    }
    case 'webhook': {
      const r = await verifyWebhookDelivery({
        profile: v.input.profile,
        headers: v.input.headers,
        body: new Uint8Array(Buffer.from(v.input.body_base64, 'base64')),
        now: v.input.now,
        ...(v.input.secrets ? { secrets: v.input.secrets } : {}),
        resolveKey: (kid: string) => jwks.keys.find((k: Json) => k.kid === kid),
      });
      return { valid: r.valid, ...(r.code ? { code: r.code } : {}) };
    }
  }
}
for (const v of vectors) {
  const got = await judge(v);
  const okFailures = !v.want.failures || Object.entries(v.want.failures).every(([k, c]) => got.failures?.[k] === c);
  if (got.valid !== v.want.valid || (v.want.code !== undefined && got.code !== v.want.code) || !okFailures) {
    throw new Error(`${v.file}: want ${JSON.stringify(v.want)}, core says ${JSON.stringify(got)}`);
  }
}
for (const name of readdirSync(here)) {
  if (name.endsWith('.json') && name !== 'differential.json') unlinkSync(join(here, name));
}
mkdirSync(here, { recursive: true });
const write = (name: string, value: unknown) => writeFileSync(join(here, name), `${JSON.stringify(value, null, 2)}\n`);
write('jwks.json', jwks);
for (const v of vectors) write(v.file, { desc: v.desc, kind: v.kind, input: v.input, want: v.want });
write('index.json', {
  desc: 'SDK golden vectors, produced by the service (vectors/sdk/generate.ts); verify each with jwks.json only',
  issuer: ISSUER,
  jwks: 'jwks.json',
  vectors: vectors.map((v) => ({ desc: v.desc, file: v.file, kind: v.kind, want: v.want })),
});
console.log(`${vectors.length} vectors written; canonical check ${canonicalJson({ ok: true })}`);
await rt.close();
rmSync(dataDir, { recursive: true, force: true });
createPublicKey(service.privateKey);
