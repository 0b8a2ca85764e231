/**
 * `vectors/preview/*.json`: the v1.1 preview documents (issue 30) as THE SERVICE makes them, for the offline verifiers
 * of the TypeScript, Python and Go SDKs. The whole service runs in-process on a real socket (test runtime: SQLite file,
 * real Ed25519 keys, AAR_OPT_IN capabilities, the HTTP API), with a FIXED service key (seeded: the JWKS is the same
 * from run to run) and a clock the script moves forward. It drives the real API:
 * - payload artefacts: a basket verified, one rejected (its decision denied), a checkout executed;
 * - memory records: one written and kept (with its content and salt), one erased by its principal (its tombstone),
 *   one `restricted` purged by the retention code once the clock passed its retain_until (its tombstone), and the
 *   principal's tombstone chain;
 * - a compliance report on demand over the period of all that (decisions, a denial, an approval, a revocation,
 *   soc2 coverage);
 * - where the routes exist: the principal's authority graph, a signed search result, the principal's data-flow graph.
 * Each valid document is written with the JWKS (`jwks.json`) and tampered variants naming the check that must fail:
 * bytes changed after signing (signature), a key the JWKS does not hold, and consistency breaks RE-SIGNED with the
 * service key (so only the document check can catch them). The script refuses to write a valid document the TS
 * SDK's verifier does not find valid, or a tampered one whose named check does not fail.
 *
 *   AAR_OPT_IN=search,memory,reports node --conditions=aar-source --import tsx \
 *     packages/server/scripts/generate-preview-vectors.ts
 *
 * Ids, instants, nonces and the agent's key differ from run to run, so the output is not byte-identical.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson, createWebCryptoSigner, signDocument } from '@aar/core';
import {
  verifyAuthorityGraph,
  verifyComplianceReport,
  verifyDataFlowGraph,
  verifyMemoryChain,
  verifyMemoryRecord,
  verifyPayloadArtefact,
  verifySearchResult,
  type Jwks,
  type PreviewCheck,
} from '@aar/sdk';
import { optInFrom } from '../src/config.ts';
import { writeKeyFile } from '../src/keys/key-files.ts';
import { purgeExpiredMemory } from '../src/services/memory/purge-expired-memory.ts';
import { mintToken, startOptInRuntime } from '../test/support/opt-in.ts';
import { ADMIN_TOKEN } from '../test/support/test-runtime.ts';
import { buildPurchaseWorld } from '../test/support/purchase-world.ts';
import { keyFromSeed } from '../../../vectors/lib/seeded-ed25519.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const OUT = fileURLToPath(new URL('../../../vectors/preview/', import.meta.url));
const GENERATOR = 'packages/server/scripts/generate-preview-vectors.ts';
const SERVICE_KEY_ID = 'ns:key:preview-vectors-2026';
const ALICE = 'ns:entity:person:alice';
const AGENT = 'ns:entity:agent:shopper-1';
const DAY_S = 24 * 3600;

/** real time plus an offset the script moves (the retention worker's and the reports' clock) */
class MovingClock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advanceDays(days: number): void {
    this.offsetMs += days * DAY_S * 1000;
  }
}

const service = keyFromSeed(0x70);
const serviceSigner = createWebCryptoSigner(
  SERVICE_KEY_ID,
  await globalThis.crypto.subtle.importKey('jwk', service.jwk, { name: 'Ed25519' }, false, ['sign']),
);
/** a key the JWKS does not hold, for the `unknown_key` variants */
const strangerKey = keyFromSeed(0x71);
const strangerSigner = createWebCryptoSigner(
  'ns:key:not-in-the-jwks',
  await globalThis.crypto.subtle.importKey('jwk', strangerKey.jwk, { name: 'Ed25519' }, false, ['sign']),
);

const clock = new MovingClock();
const dataDir = mkdtempSync(join(tmpdir(), 'aar-preview-vectors-'));
writeKeyFile(join(dataDir, 'keys'), {
  key_id: SERVICE_KEY_ID,
  private_jwk: service.jwk,
  valid_from: '2026-01-01T00:00:00Z',
  valid_until: null,
});
const optIn = [...optInFrom(process.env.AAR_OPT_IN ?? 'search,memory,reports')];
const rt = await startOptInRuntime(optIn, { dataDir, clock });

interface Vector {
  file: string;
  kind: string;
  desc: string;
  input: Json;
  want: { valid: true } | { valid: false; check: string; failure: string };
}
const vectors: Vector[] = [];
let jwks: Jwks | undefined;
const missing: string[] = [];

const must = async (method: string, path: string, body?: unknown, token?: string): Promise<Json> => {
  const res = await rt.call(method, path, body, token);
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** re-signed by the service key: a consistency break only the document's own checks can find */
const resign = async (doc: Json, change: (d: Json) => void): Promise<Json> => {
  const copy = structuredClone(doc);
  delete copy.signature;
  change(copy);
  return signDocument(copy, serviceSigner);
};
/** changed after signing: the signature no longer covers it */
const alter = (doc: Json, change: (d: Json) => void): Json => {
  const copy = structuredClone(doc);
  change(copy);
  return copy;
};
const signedByStranger = async (doc: Json): Promise<Json> => {
  const copy = structuredClone(doc);
  delete copy.signature;
  return signDocument(copy, strangerSigner);
};

try {
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
  const w = await buildPurchaseWorld(rt.base, ADMIN_TOKEN, { signerNow: nowSeconds });
  const periodStart = new Date(clock.now().getTime() - 60_000).toISOString();
  jwks = (await must('GET', '/.well-known/jwks.json')) as Jwks;

  await payloadArtefacts(w, jwks);
  await memory(w, jwks);
  // a revocation for the report: a second grant, revoked
  const extra = await must('POST', '/v1/grants', {
    principal_entity_id: ALICE,
    actor_entity_id: AGENT,
    capability_id: 'ns:capability:payment_action:card_purchase',
    resource_id: 'ns:credential:card-token:tok-1',
    scope: {
      max_amount_per_purchase: { amount: 5, currency: 'EUR' },
      max_daily_amount: { amount: 10, currency: 'EUR' },
      valid_until: '2028-01-01T00:00:00Z',
    },
  });
  await must('POST', `/v1/grants/${extra.grant_id}/revoke`);
  // an approval for the report: above the grant's requires_approval_above
  const approval = await w.authorize(w.purchase(45));
  if (approval.body.decision !== 'require_approval') throw new Error(`approval: ${JSON.stringify(approval.body)}`);
  await graphSearchAndFlow(jwks);
  clock.advanceDays(0.001);
  await report(jwks, periodStart);
} finally {
  await rt.close();
  rmSync(dataDir, { recursive: true, force: true });
}

async function keep(vector: Vector, verify: () => Promise<{ valid: boolean; checks: PreviewCheck[] }>) {
  const result = await verify();
  const failed = result.checks.filter((c) => !c.valid);
  if (vector.want.valid) {
    if (!result.valid)
      throw new Error(`${vector.file}: the service's own document does not verify: ${JSON.stringify(failed)}`);
  } else {
    const { check, failure } = vector.want;
    if (!failed.some((c) => c.check === check && c.failure === failure)) {
      throw new Error(`${vector.file}: expected ${check}/${failure} to fail, got ${JSON.stringify(failed)}`);
    }
  }
  vectors.push(vector);
}

/** the common tampered variants of one signed document */
async function tamperedSet(
  prefix: string,
  kind: string,
  what: string,
  input: Json,
  verify: (input: Json) => Promise<{ valid: boolean; checks: PreviewCheck[] }>,
  breaks: Array<{ name: string; desc: string; change: (d: Json) => void; check: string; failure: string }>,
) {
  const variants: Array<{ name: string; desc: string; document: Json; check: string; failure: string }> = [
    {
      name: 'changed-after-signing',
      desc: `${what}, one member changed after the service signed it`,
      document: alter(input.document, (d) => {
        d.issuer = `${String(d.issuer)}/other`;
      }),
      check: 'signature',
      failure: 'signature_mismatch',
    },
    {
      name: 'unknown-key',
      desc: `${what}, signed by a key the caller's JWKS does not hold (its key_id is not in it)`,
      document: await signedByStranger(input.document),
      check: 'signature',
      failure: 'unknown_key',
    },
    {
      name: 'other-schema-version',
      desc: `${what}, another schema_version, re-signed by the service key`,
      document: await resign(input.document, (d) => {
        d.schema_version = 'ns.something_else.v1';
      }),
      check: 'schema_version',
      failure: 'schema_version_mismatch',
    },
  ];
  for (const b of breaks) {
    variants.push({
      name: b.name,
      desc: `${what}, ${b.desc}, re-signed by the service key`,
      document: await resign(input.document, b.change),
      check: b.check,
      failure: b.failure,
    });
  }
  for (const v of variants) {
    const tampered = { ...input, document: v.document };
    await keep(
      {
        file: `${prefix}-${v.name}.json`,
        kind,
        desc: v.desc,
        input: tampered,
        want: { valid: false, check: v.check, failure: v.failure },
      },
      () => verify(tampered),
    );
  }
}

function digestOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

async function payloadArtefacts(w: Json, jwks: Jwks) {
  const verify = (input: Json) =>
    verifyPayloadArtefact(input.document, jwks, { payload: input.payload, agentKey: input.agent_key });
  const statement = async (fields: { kind: string; digest: string; policy_decision_id: string }) => {
    const key = await globalThis.crypto.subtle.importKey('jwk', w.privateJwk, { name: 'Ed25519' }, false, ['sign']);
    const signed = await signDocument(
      { schema_version: 'ns.payload_artefact_statement.v1', ...fields },
      createWebCryptoSigner(AGENT, key),
    );
    return signed.signature;
  };
  const runtime = await mintToken(rt.call, { role: 'runtime' });
  const present = async (kind: string, digest: string, decisionId: string) =>
    must(
      'POST',
      '/v1/payload-artefacts',
      {
        kind,
        digest,
        policy_decision_id: decisionId,
        signature: await statement({ kind, digest, policy_decision_id: decisionId }),
      },
      runtime,
    );
  const allowed = async (amount: number, extra: Record<string, unknown> = {}) => {
    const res = await w.authorize(w.purchase(amount, extra));
    if (res.body.decision !== 'allow_with_constraints') throw new Error(`not allowed: ${JSON.stringify(res.body)}`);
    return res.body.policy_decision_id as string;
  };

  // a basket: its digest is the SHA-256 of the basket's RFC 8785 bytes, the hash authorize bound
  const basket = { items: [{ sku: 'apples', qty: 2 }] };
  const basketDigest = createHash('sha256').update(canonicalJson(basket), 'utf8').digest('base64url');
  const verified = await present('basket', basketDigest, await allowed(12, { basket }));
  if (verified.state !== 'verified') throw new Error(`basket artefact: ${JSON.stringify(verified)}`);
  const agentKey = { kty: w.privateJwk.kty, crv: w.privateJwk.crv, x: w.privateJwk.x };
  const verifiedInput = { document: verified, payload: canonicalJson(basket), agent_key: agentKey };
  await keep(
    {
      file: 'artefact-verified.json',
      kind: 'payload_artefact',
      desc: 'a basket artefact the service verified against its allowed decision',
      input: verifiedInput,
      want: { valid: true },
    },
    () => verify(verifiedInput),
  );
  await tamperedSet('artefact-verified', 'payload_artefact', 'a verified basket artefact', verifiedInput, verify, [
    {
      name: 'basket-hash-changed',
      desc: 'its basket_hash no longer the digest',
      change: (d) => {
        d.basket_hash = `sha-256:${'A'.repeat(43)}`;
      },
      check: 'basket',
      failure: 'basket_mismatch',
    },
    {
      name: 'outcome-while-verified',
      desc: 'an outcome while still verified',
      change: (d) => {
        d.outcome = 'executed';
      },
      check: 'state',
      failure: 'state_inconsistent',
    },
    {
      name: 'reason-while-verified',
      desc: 'a rejection reason while verified',
      change: (d) => {
        d.reason = 'decision_expired';
      },
      check: 'state',
      failure: 'state_inconsistent',
    },
    {
      name: 'transitions-reordered',
      desc: 'its transitions in reverse order',
      change: (d) => {
        d.transitions.reverse();
      },
      check: 'transitions',
      failure: 'transitions_invalid',
    },
  ]);

  // rejected: presented against a denied decision (the casino is a blocked category)
  const denied = await w.authorize({
    ...w.purchase(10),
    resource: { merchant_id: 'casino-1', amount: 10, currency: 'EUR' },
  });
  if (denied.body.decision !== 'deny') throw new Error(`casino: ${JSON.stringify(denied.body)}`);
  const rejected = await present('checkout', digestOf('checkout-1'), denied.body.policy_decision_id);
  if (rejected.state !== 'rejected') throw new Error(`rejected artefact: ${JSON.stringify(rejected)}`);
  const rejectedInput = { document: rejected, payload: 'checkout-1', agent_key: agentKey };
  await keep(
    {
      file: 'artefact-rejected.json',
      kind: 'payload_artefact',
      desc: `a checkout artefact the service rejected (${String(rejected.reason)})`,
      input: rejectedInput,
      want: { valid: true },
    },
    () => verify(rejectedInput),
  );
  await tamperedSet('artefact-rejected', 'payload_artefact', 'a rejected artefact', rejectedInput, verify, [
    {
      name: 'no-reason',
      desc: 'rejected without a reason',
      change: (d) => {
        d.reason = null;
      },
      check: 'state',
      failure: 'state_inconsistent',
    },
    {
      name: 'verified-transition',
      desc: 'a verified transition while rejected',
      change: (d) => {
        d.transitions[1].state = 'verified';
      },
      check: 'transitions',
      failure: 'transitions_invalid',
    },
  ]);

  // executed: a checkout, verified then executed (the reservation settled)
  const checkout = await present('checkout', digestOf('checkout-2'), await allowed(8));
  const executed = await must(
    'POST',
    `/v1/payload-artefacts/${checkout.payload_artefact_id}/execute`,
    { outcome: 'executed' },
    runtime,
  );
  if (executed.state !== 'executed') throw new Error(`executed artefact: ${JSON.stringify(executed)}`);
  const executedInput = { document: executed, payload: 'checkout-2', agent_key: agentKey };
  const stranger = { kty: 'OKP', crv: 'Ed25519', x: strangerKey.publicJwk.x };
  for (const [name, desc, input, check, failure] of [
    [
      'other-payload',
      'held beside other payload bytes',
      { ...executedInput, payload: 'checkout-3' },
      'payload',
      'payload_digest_mismatch',
    ],
    [
      'other-agent-key',
      "checked with a key that is not the agent's",
      { ...executedInput, agent_key: stranger },
      'agent_signature',
      'agent_signature_invalid',
    ],
  ] as const) {
    await keep(
      {
        file: `artefact-executed-${name}.json`,
        kind: 'payload_artefact',
        desc: `an executed artefact ${desc}`,
        input,
        want: { valid: false, check, failure },
      },
      () => verify(input),
    );
  }
  await keep(
    {
      file: 'artefact-executed.json',
      kind: 'payload_artefact',
      desc: 'a checkout artefact verified, then executed (its reservation settled)',
      input: executedInput,
      want: { valid: true },
    },
    () => verify(executedInput),
  );
  await tamperedSet('artefact-executed', 'payload_artefact', 'an executed artefact', executedInput, verify, [
    {
      name: 'executed-transition-dropped',
      desc: 'executed with its executed transition removed',
      change: (d) => {
        d.transitions.pop();
      },
      check: 'transitions',
      failure: 'transitions_invalid',
    },
    {
      name: 'no-executed-at',
      desc: 'executed without executed_at',
      change: (d) => {
        d.executed_at = null;
      },
      check: 'state',
      failure: 'state_inconsistent',
    },
    {
      name: 'executed-before-decided',
      desc: 'executed before it was verified',
      change: (d) => {
        d.executed_at = '2000-01-01T00:00:00.000Z';
      },
      check: 'transitions',
      failure: 'transitions_invalid',
    },
  ]);
}

async function memory(w: Json, jwks: Jwks) {
  const verify = (input: Json) =>
    verifyMemoryRecord(input.document, jwks, {
      ...(input.content !== undefined ? { content: input.content, contentSalt: input.content_salt } : {}),
      ...(input.record !== undefined ? { record: input.record } : {}),
    });
  const writer = await mintToken(rt.call, { role: 'runtime', scopes: ['memory.write', 'memory.read'] });
  const owner = await mintToken(rt.call, {
    role: 'principal',
    principal: ALICE,
    scopes: ['memory.read', 'memory.write'],
  });
  const write = async (classification: string, content: unknown) => {
    const text = JSON.stringify({ agent_entity_id: AGENT, grant_id: w.grant.grant_id, classification, content });
    const url = `${rt.base}/v1/memory/records`;
    const headers = await w.signer.sign({ method: 'POST', url, body: text });
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json', ...headers },
      body: text,
    });
    const body = await res.json();
    if (res.status !== 201) throw new Error(`memory write -> ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

  const kept = await write('internal', { note: 'alice prefers the organic apples', visits: 3 });
  const keptInput = { document: kept.record, content: kept.content, content_salt: kept.content_salt };
  await keep(
    {
      file: 'memory-record.json',
      kind: 'memory_record',
      desc: 'a memory record the agent wrote, with the content and salt it was served with',
      input: keptInput,
      want: { valid: true },
    },
    () => verify(keptInput),
  );
  await tamperedSet('memory-record', 'memory_record', 'a memory record', keptInput, verify, [
    {
      name: 'content-digest-changed',
      desc: 'its content_digest of other content',
      change: (d) => {
        d.content_digest = 'A'.repeat(43);
      },
      check: 'content',
      failure: 'content_digest_mismatch',
    },
    {
      name: 'retention-extended',
      desc: 'retain_until a day later than its retention_days',
      change: (d) => {
        d.retain_until = new Date(Date.parse(d.retain_until) + DAY_S * 1000).toISOString();
      },
      check: 'retention',
      failure: 'retention_mismatch',
    },
  ]);
  const otherContent = { ...keptInput, content: { note: 'alice prefers the cheap apples', visits: 3 } };
  await keep(
    {
      file: 'memory-record-other-content.json',
      kind: 'memory_record',
      desc: 'a memory record served with content it was not written with',
      input: otherContent,
      want: { valid: false, check: 'content', failure: 'content_digest_mismatch' },
    },
    () => verify(otherContent),
  );

  // erased by its principal: the content goes, a tombstone chained to the principal's previous one stays
  const erasedRecord = await write('confidential', { note: 'delivery address on file is the office' });
  const erased = await must('DELETE', `/v1/memory/records/${erasedRecord.memory_record_id}`, undefined, owner);
  if (erased.tombstone === null || erased.content !== null) throw new Error(`erase: ${JSON.stringify(erased)}`);
  const erasedInput = { document: erased.tombstone, record: erased.record };
  await keep(
    {
      file: 'memory-tombstone-erased.json',
      kind: 'memory_record',
      desc: 'the tombstone of a record its principal erased, with the record it ends',
      input: erasedInput,
      want: { valid: true },
    },
    () => verify(erasedInput),
  );
  await tamperedSet('memory-tombstone-erased', 'memory_record', 'an erasure tombstone', erasedInput, verify, [
    {
      name: 'with-content',
      desc: 'carrying a content member',
      change: (d) => {
        d.content = { note: 'kept after all' };
      },
      check: 'tombstone',
      failure: 'tombstone_has_content',
    },
    {
      name: 'record-digest-changed',
      desc: 'naming another record digest',
      change: (d) => {
        d.record_digest = 'B'.repeat(43);
      },
      check: 'record',
      failure: 'record_mismatch',
    },
    {
      name: 'first-with-previous',
      desc: 'sequence 1 naming a previous tombstone',
      change: (d) => {
        d.sequence = 1;
        d.previous_tombstone_digest = 'C'.repeat(43);
      },
      check: 'tombstone',
      failure: 'chain_broken',
    },
  ]);
  const contentBeside = {
    ...erasedInput,
    content: { note: 'delivery address on file is the office' },
    content_salt: 'x',
  };
  await keep(
    {
      file: 'memory-tombstone-erased-content-beside.json',
      kind: 'memory_record',
      desc: 'an erasure tombstone handed with content beside it',
      input: contentBeside,
      want: { valid: false, check: 'content', failure: 'tombstone_has_content' },
    },
    () => verify(contentBeside),
  );

  // purged: a restricted record (30 days), the clock moved past its retain_until, the retention code run
  const purgedRecord = await write('restricted', { note: 'one-time code sent to the phone ending 17' });
  clock.advanceDays(31);
  const purgedIds = await purgeExpiredMemory(rt.ctx);
  if (!purgedIds.includes(purgedRecord.memory_record_id)) throw new Error(`purge: ${JSON.stringify(purgedIds)}`);
  const purged = await must('GET', `/v1/memory/records/${purgedRecord.memory_record_id}`, undefined, owner);
  if (purged.tombstone === null) throw new Error(`purged: ${JSON.stringify(purged)}`);
  const purgedInput = { document: purged.tombstone, record: purged.record };
  await keep(
    {
      file: 'memory-tombstone-purged.json',
      kind: 'memory_record',
      desc: 'the tombstone of a restricted record purged at the end of its retention',
      input: purgedInput,
      want: { valid: true },
    },
    () => verify(purgedInput),
  );
  await tamperedSet('memory-tombstone-purged', 'memory_record', 'a purge tombstone', purgedInput, verify, [
    {
      name: 'before-its-record',
      desc: 'dated before the record it ends',
      change: (d) => {
        d.created_at = '2000-01-01T00:00:00.000Z';
      },
      check: 'tombstone',
      failure: 'tombstone_before_record',
    },
  ]);
  const purgedRecordDoc = { document: purged.record };
  await keep(
    {
      file: 'memory-record-purged.json',
      kind: 'memory_record',
      desc: 'the signed record of a purged record (no content: it stays verifiable)',
      input: purgedRecordDoc,
      want: { valid: true },
    },
    () => verify(purgedRecordDoc),
  );

  // the principal's chain: the erasure, then the purge
  const chain = await must(
    'GET',
    `/v1/memory/tombstones?principal_entity_id=${encodeURIComponent(ALICE)}`,
    undefined,
    owner,
  );
  const tombstones = (chain.items as Json[]).map((t) => (t.tombstone ?? t) as Json);
  const chainInput = { records: tombstones };
  const verifyChain = (input: Json) => verifyMemoryChain(input.records, jwks);
  await keep(
    {
      file: 'memory-chain.json',
      kind: 'memory_chain',
      desc: "the principal's tombstone chain: the erasure (1), then the purge (2)",
      input: chainInput,
      want: { valid: true },
    },
    () => verifyChain(chainInput),
  );
  const chainVariants: Array<{ name: string; desc: string; records: Json[]; check: string; failure: string }> = [
    {
      name: 'first-removed',
      desc: 'its first tombstone removed',
      records: tombstones.slice(1),
      check: 'sequence',
      failure: 'sequence_gap',
    },
    {
      name: 'reordered',
      desc: 'its tombstones in reverse order',
      records: [...tombstones].reverse(),
      check: 'links',
      failure: 'chain_broken',
    },
    {
      name: 'link-rewritten',
      desc: 'its second tombstone naming another previous digest (re-signed by the service key)',
      records: [
        tombstones[0],
        await resign(tombstones[1], (d) => {
          d.previous_tombstone_digest = 'D'.repeat(43);
        }),
      ],
      check: 'links',
      failure: 'chain_broken',
    },
    {
      name: 'first-replaced',
      desc: 'its first tombstone replaced by a re-signed copy with another reason (the second no longer links to it)',
      records: [
        await resign(tombstones[0], (d) => {
          d.reason = d.reason === 'erased' ? 'retention_expired' : 'erased';
        }),
        tombstones[1],
      ],
      check: 'links',
      failure: 'chain_broken',
    },
    {
      name: 'a-record-inside',
      desc: 'a record where a tombstone should be',
      records: [tombstones[0], purged.record],
      check: 'tombstones',
      failure: 'not_a_tombstone',
    },
  ];
  for (const v of chainVariants) {
    const input = { records: v.records };
    await keep(
      {
        file: `memory-chain-${v.name}.json`,
        kind: 'memory_chain',
        desc: `the tombstone chain, ${v.desc}`,
        input,
        want: { valid: false, check: v.check, failure: v.failure },
      },
      () => verifyChain(input),
    );
  }
}

async function report(jwks: Jwks, from: string) {
  const verify = (input: Json) => verifyComplianceReport(input.document, jwks);
  const token = await mintToken(rt.call, { role: 'admin', scopes: ['reports.read', 'reports.write'] });
  const to = new Date(clock.now().getTime() - 1000).toISOString();
  const made = await must('POST', '/v1/reports', { from, to, frameworks: ['soc2'] }, token);
  const stored = await must('GET', `/v1/reports/${made.report_id}`, undefined, token);
  const input = { document: stored };
  await keep(
    {
      file: 'report.json',
      kind: 'compliance_report',
      desc: 'a compliance report over the period of the vectors (decisions, a denial, a revocation, soc2 coverage)',
      input,
      want: { valid: true },
    },
    () => verify(input),
  );
  await tamperedSet('report', 'compliance_report', 'a compliance report', input, verify, [
    {
      name: 'decision-total-changed',
      desc: 'one decision more in its total than in its parts',
      change: (d) => {
        d.decisions.total += 1;
      },
      check: 'decisions',
      failure: 'totals_mismatch',
    },
    {
      name: 'outcome-changed',
      desc: 'an outcome count moved off the total',
      change: (d) => {
        d.decisions.by_outcome.executed += 1;
      },
      check: 'decisions',
      failure: 'totals_mismatch',
    },
    {
      name: 'denial-hidden',
      desc: 'a denial reason dropped',
      change: (d) => {
        d.denials.by_reason = [];
      },
      check: 'denials',
      failure: 'totals_mismatch',
    },
    {
      name: 'approvals-changed',
      desc: 'an approval total off its statuses',
      change: (d) => {
        d.approvals.total += 2;
      },
      check: 'approvals',
      failure: 'totals_mismatch',
    },
    {
      name: 'period-reversed',
      desc: 'its period ending before it starts',
      change: (d) => {
        [d.period.start, d.period.end] = [d.period.end, d.period.start];
      },
      check: 'period',
      failure: 'period_invalid',
    },
    {
      name: 'coverage-summary-changed',
      desc: 'a coverage summary off its controls',
      change: (d) => {
        d.coverage[0].summary.satisfied += 1;
      },
      check: 'coverage',
      failure: 'totals_mismatch',
    },
  ]);
}

async function graphSearchAndFlow(jwks: Jwks) {
  const optional = async (what: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      missing.push(`${what}: ${(error as Error).message.slice(0, 200)}`);
    }
  };
  await optional('authority graph', async () => {
    const auditor = await mintToken(rt.call, { role: 'auditor' });
    const graph = await must('GET', `/v1/graph/principals/${encodeURIComponent(ALICE)}`, undefined, auditor);
    const input = { document: graph };
    const verify = (i: Json) => verifyAuthorityGraph(i.document, jwks);
    await keep(
      {
        file: 'authority-graph.json',
        kind: 'authority_graph',
        desc: "alice's authority graph at a checkpoint",
        input,
        want: { valid: true },
      },
      () => verify(input),
    );
    await tamperedSet('authority-graph', 'authority_graph', 'an authority graph', input, verify, [
      {
        name: 'dangling-edge',
        desc: 'an edge to a node it does not hold',
        change: (d) => {
          d.edges.push({ ...d.edges[0], to: 'ns:entity:agent:nobody' });
        },
        check: 'edges',
        failure: 'edge_dangling',
      },
      {
        name: 'grant-without-depth',
        desc: 'a grant node without its depth',
        change: (d) => {
          d.nodes.find((n: Json) => n.kind === 'grant').depth = null;
        },
        check: 'nodes',
        failure: 'node_inconsistent',
      },
      {
        name: 'checkpoint-root-changed',
        desc: 'its checkpoint root changed (the outer document re-signed, the checkpoint not)',
        change: (d) => {
          d.checkpoint.root_hash = Buffer.alloc(32, 7).toString('base64');
        },
        check: 'checkpoint',
        failure: 'signature_mismatch',
      },
    ]);
  });
  await optional('search result', async () => {
    const token = await mintToken(rt.call, { role: 'auditor', scopes: ['search.read'] });
    const answer = await must('POST', '/v1/search', { kinds: ['decisions'] }, token);
    const input = { document: answer.search_result, items: answer.items };
    const verify = (i: Json) => verifySearchResult(i.document, jwks, i.items ? { items: i.items } : {});
    await keep(
      {
        file: 'search-result.json',
        kind: 'search_result',
        desc: 'a signed search result with the items it answered',
        input,
        want: { valid: true },
      },
      () => verify(input),
    );
    await tamperedSet('search-result', 'search_result', 'a search result', input, verify, [
      {
        name: 'results-digest-changed',
        desc: 'a results_digest of other results',
        change: (d) => {
          d.results_digest = `sha-256:${'E'.repeat(43)}`;
        },
        check: 'results',
        failure: 'digest_mismatch',
      },
      {
        name: 'request-changed',
        desc: 'another request under the same request_digest',
        change: (d) => {
          d.request = { kinds: ['listings'] };
        },
        check: 'request',
        failure: 'digest_mismatch',
      },
    ]);
    const otherItems = {
      ...input,
      items: answer.items.map((it: Json, k: number) => (k === 0 ? { ...it, item: { ...it.item, extra: 1 } } : it)),
    };
    await keep(
      {
        file: 'search-result-other-items.json',
        kind: 'search_result',
        desc: 'a search result held beside items it did not answer',
        input: otherItems,
        want: { valid: false, check: 'items', failure: 'items_mismatch' },
      },
      () => verify(otherItems),
    );
  });
  await optional('data-flow graph', async () => {
    const token = await mintToken(rt.call, { role: 'auditor', scopes: ['reports.read'] });
    const flow = await must('GET', `/v1/data-flow/${encodeURIComponent(ALICE)}`, undefined, token);
    const input = { document: flow };
    const verify = (i: Json) => verifyDataFlowGraph(i.document, jwks);
    await keep(
      {
        file: 'data-flow-graph.json',
        kind: 'data_flow_graph',
        desc: "alice's data-flow graph",
        input,
        want: { valid: true },
      },
      () => verify(input),
    );
    await tamperedSet('data-flow-graph', 'data_flow_graph', 'a data-flow graph', input, verify, [
      {
        name: 'flow-to-unlisted-recipient',
        desc: 'a flow to a recipient it does not list',
        change: (d) => {
          d.flows[0].recipient_id = 'ns:entity:agent:nobody';
        },
        check: 'flows',
        failure: 'flow_dangling',
      },
      {
        name: 'flow-last-before-first',
        desc: 'a flow last seen before it was first seen',
        change: (d) => {
          d.flows[0].last_at = '2000-01-01T00:00:00.000Z';
        },
        check: 'flows',
        failure: 'flow_times_invalid',
      },
    ]);
  });
}

mkdirSync(OUT, { recursive: true });
for (const name of readdirSync(OUT)) if (name.endsWith('.json')) rmSync(join(OUT, name));
if (jwks === undefined) throw new Error('no jwks');
writeFileSync(join(OUT, 'jwks.json'), `${JSON.stringify(jwks, null, 2)}\n`);
for (const v of vectors) {
  writeFileSync(
    join(OUT, v.file),
    `${JSON.stringify({ desc: v.desc, kind: v.kind, generator: GENERATOR, input: v.input, want: v.want }, null, 2)}\n`,
  );
}
console.log(`wrote ${vectors.length} vectors and jwks.json to ${OUT}`);
if (missing.length > 0) console.log(`not generated (their routes are not there yet):\n- ${missing.join('\n- ')}`);
